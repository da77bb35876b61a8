// Package jsonscan reads JSON text from a stream token by token, as
// encoding/json's Decoder.Token does, for the JSON input formats
// (ingest/chrome, ingest/cpuprofile): the same tokens, the same grammar
// (a value it accepts is one json.Valid accepts), the same InputOffset,
// but strings and numbers are handed over as their raw text, in place
// in its buffer, and a value can be skipped or taken whole (Raw) without
// decoding it. It exists because encoding/json allocates per token and
// checks each value twice; this scanner reads a few hundred MB/s.
//
// Besides the scanner, it holds what the JSON formats share around it:
// DocError, the account of a document they cannot read on, which
// Describe gives of the scanner's errors; SkipRest; SkipBOM; and
// IsString, Unquote and UnquoteKey for string tokens.
//
// Memory: one buffer (256 KiB to start) that grows to hold the longest
// string or number, or the largest value taken with Raw, up to the
// limit given to New; past it, reading stops with a *LimitError.
//
// It imports only the standard library.
package jsonscan
