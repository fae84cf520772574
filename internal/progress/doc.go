// Package progress logs how far a long phase of a run is: every few
// seconds one line with the phase, the work done and in all, and the time
// it expects the rest to take, so that an operator watching a run of a
// million documents sees each phase move and when it should end.
package progress
