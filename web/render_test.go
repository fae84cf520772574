package web

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
)

// TestGoneAway: an error that only says the client closed the request is
// not the server's error (logged at debug); the same error on a live
// request, or another error on a closed one, is.
func TestGoneAway(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	wrapped := fmt.Errorf("read report: %w", context.Canceled)
	for _, tc := range []struct {
		ctx  context.Context
		err  error
		want bool
	}{
		{ctx, wrapped, true},
		{ctx, context.DeadlineExceeded, true},
		{live, wrapped, false},
		{ctx, errors.New("relation does not exist"), false},
	} {
		if got := goneAway(tc.ctx, tc.err); got != tc.want {
			t.Errorf("goneAway(ctx done=%v, %v) = %v", tc.ctx.Err() != nil, tc.err, got)
		}
	}
	r := httptest.NewRequest("GET", "/documents", nil).WithContext(ctx)
	if !hungUp(r, wrapped) {
		t.Error("hungUp: a closed request's canceled error")
	}
}
