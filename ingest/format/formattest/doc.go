// Package formattest runs a format's parser over test inputs the way
// pfold does, for the format packages' tests, fuzz targets and
// benchmarks, and holds what those tests share:
//
//   - Golden: every input folded by default and with each option set,
//     each fold checked against its golden file (go test -update
//     rewrites them) and each golden against the reference tools'
//     outputs (*.oracle.folded), but for known, explained differences,
//     which must still differ.
//   - Sniff: the sniffer is sure of the format's inputs and of nothing
//     else in testdata, nor of what is no profile.
//   - Cases: small inputs and what they fold to, malformed lines
//     counted, a strict fold failing on them.
//   - FuzzFormat, Benchmark, BenchmarkRead and Repeat: fuzz targets and
//     benchmarks;
//     CPURate, a benchmark's throughput by CPU time.
//   - FoldDoc and CompareOracle: a document parser held to the one it
//     replaced, in a fuzz target.
//   - Dir: a format's test data, read (gunzipped) by name.
//
// # What it must never import
//
// Of pfold's packages, only fold, stream, ingest/format and
// internal/stacktest: never a format package, whose tests import it, nor
// ingest's registry. Only tests import it.
package formattest
