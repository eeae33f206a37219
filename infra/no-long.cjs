// Bundled in place of the `long` package (infra/proto-descriptors.ts): protobufjs then carries int64 values as
// JavaScript numbers, exact up to 2^53 (our int64 fields are counts and millisecond timestamps), and the 11 KB
// library stays out of every function.
module.exports = null;
