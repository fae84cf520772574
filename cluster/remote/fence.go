package remote

import (
	"context"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Run fencing. Deliver, Build, Count, Chunk, Commit and Abort carry no run
// of their own, so a call of an abandoned run held up in a dead connection
// (a network partition that heals late) could otherwise reach the node
// after the next run's Begin and mix into that run: a stale Deliver
// without index would change the next run's counts unnoticed. The client
// therefore sends the run of its last Begin with every such call, and the
// server refuses a call whose run is not the one it began (codes.Aborted,
// which the client maps to cluster.ErrNoRun: the run is discarded).

// runKey is the metadata key carrying the run ID.
const runKey = "plagd-run"

// withRun attaches run to an outgoing call (0: no run yet, nothing attached).
func withRun(ctx context.Context, run int64) context.Context {
	if run == 0 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, runKey, strconv.FormatInt(run, 10))
}

// checkRun refuses a call that names a run other than current. A call that
// names none (a client of an older plagd) is let through.
func checkRun(ctx context.Context, current int64, call string) error {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(runKey)
	if len(vals) == 0 {
		return nil
	}
	run, err := strconv.ParseInt(vals[0], 10, 64)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "%s: bad %s metadata %q", call, runKey, vals[0])
	}
	if run != current {
		return status.Errorf(codes.Aborted, "%s of run %d refused: the node is in run %d (a late call of an abandoned run)", call, run, current)
	}
	return nil
}
