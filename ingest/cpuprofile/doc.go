// Package cpuprofile reads V8 CPU profiles: the .cpuprofile JSON that
// node --cpu-prof writes and Chrome DevTools saves ("Save profile" in the
// JavaScript Profiler, or Profiler.stop over the DevTools protocol). No
// FlameGraph script reads it; the profile checks itself (each node's
// hitCount against the samples naming it, the time deltas against
// endTime-startTime).
//
// The profile is an object: "nodes" (id, callFrame{functionName, url,
// lineNumber, columnNumber, scriptId}, hitCount, children — or parent,
// as in the trace events' ProfileChunk form), "samples" (one node id per
// sample), "timeDeltas" (microseconds from the previous sample; the
// first from startTime), "startTime" and "endTime" (microseconds).
//
// Each sample is one stack, root first. The synthetic "(root)" node is
// left out, as DevTools' tree views and speedscope leave it out: every
// stack would start with it, and flame graphs draw their own root. V8's
// other pseudo-frames — "(program)", "(idle)", "(garbage collector)" —
// stay, as children of the root, so that every sample is counted.
//
// A frame is named as a JavaScript stack trace (Error.stack) names it,
// which DevTools shows beside each function: "functionName (URL:LINE:COLUMN)",
// line and column counted from 1 and giving where the function starts (a
// node's callFrame is the function, not the line sampled), the URL as the
// profile gives it
// ("file:///app/server.js", "node:internal/timers",
// "https://example.com/app.js"); "(anonymous)" for a function without a
// name; the name alone when the frame has no URL (V8's pseudo-frames,
// native functions such as "setTimeout"). Two functions of one name in
// different files, or two closures on one line of a minified bundle, so
// stay apart. A ';' in a name becomes ':' and a line break a space, so
// that a frame stays one frame.
//
// With --weight samples (the default) each sample counts 1. With
// --weight time a sample weighs the time until the next sample, in
// microseconds, as DevTools' and speedscope's timelines draw it; the last
// sample weighs the time to endTime. The total is then
// endTime-startTime less the first delta (the time before the first
// sample, when no stack was seen). Timestamps that go backwards (V8 can
// record samples slightly out of order) are held at the latest time seen,
// so no sample weighs less than nothing.
//
// Memory: the input is read with ingest/internal/jsonscan, key by key,
// node by node (each node checked as encoding/json checks it before any of
// it is used) and element by element in "samples" and "timeDeltas";
// nothing holds the whole document or an array's text. The scanner's
// buffer (256 KiB) grows to the largest node, at most 64 MiB. The node
// table is held (one entry per node, its frame name built once). The
// samples are tallied per node as they are parsed when the nodes came
// first and --weight is samples, as node and Chrome write them. With
// --weight time the samples are held (4 bytes each) until the time deltas
// that follow them are read; in other key orders, what comes before the
// nodes is held until they arrive (8 bytes a sample or delta). An array of
// integers is taken element by element, but counts only once it is read to
// its end, as when encoding/json checked it whole first: what it changed
// is saved before (8 bytes a node) and put back when it is cut short or
// not well formed.
//
// This package imports only fold, stream, ingest/format,
// ingest/internal/jsonscan, ingest/internal/lex and the standard library; it must import
// nothing else of pfold's.
package cpuprofile
