// Package sandboxtest makes the hostile files and the misbehaving reader
// that tests of the extraction sandbox need, in the packages that start a
// sandbox.Pool (sandbox itself, daemon, web): a file whose reader never
// returns, which no budget inside package extract stops. The hostile files
// of issue 14 are in internal/hostile.
package sandboxtest
