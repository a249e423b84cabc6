// Package report is how netlab shows what an experiment measured: as text on a terminal, as
// Markdown for BENCHMARKS.md, and as SVG charts for slides and web pages, all from one
// description. An experiment fills a Section with paragraphs, tables and charts and never
// formats anything itself, so the three outputs always say the same thing.
//
// # Reading a distribution
//
// Most of what netlab measures is a delay, and a delay is a distribution, not a number. The
// mean hides what a player feels: at 10% loss nine messages in ten arrive on time and the
// tenth waits a round trip or two, so the mean moves little while the game stutters. Tables
// therefore give percentiles (Dist): p50 is the typical message, p95 and p99 the ones that
// make a game feel laggy (at 20 messages a second, one in a hundred is one every five
// seconds), and max the worst one seen. Percentiles here are nearest-rank: p99 of 200 samples
// is the 198th smallest, a value that was really measured, never an interpolation.
//
// # Charts
//
// A Chart is either bars (one value per label, or a few per label) or lines (one value per
// category on the x axis, one line per series). Text charts are drawn with ASCII only, so they
// survive any terminal, a Markdown code block and a copy into an e-mail. When values span
// orders of magnitude (a stop-and-wait sender's delay beside a dependency graph's), LogY
// draws them on a logarithmic scale and says so in the title; otherwise the small bars would
// all be empty.
//
// SVG output is hand-written with fmt: a chart is a few dozen elements (axes, bars or
// polylines, labels), and the format is only ever written here, never parsed.
package report
