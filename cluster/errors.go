package cluster

import "errors"

// ErrStale is returned by a node asked to build on a generation it does not hold.
// The master reloads it (or runs in full) rather than computing on wrong data.
var ErrStale = errors.New("node holds a different index generation")

// ErrNoRun is returned when a node is asked to work outside a run.
var ErrNoRun = errors.New("no run in progress on this node")
