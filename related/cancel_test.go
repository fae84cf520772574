package related

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestStoppable_SkipsTasksAfterCancel: once the context ends, no further
// task starts and Run unwinds to Catch with the context's error.
func TestStoppable_SkipsTasksAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int64
	returned := false
	err := Catch(func() {
		Stoppable(ctx, Pool(1)).Run(100, func(i int) {
			ran.Add(1)
			if i == 10 {
				cancel()
			}
		})
		returned = true
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if returned {
		t.Fatal("Run returned normally after the cancellation")
	}
	if n := ran.Load(); n != 11 {
		t.Fatalf("%d tasks ran, want 11 (none after the cancellation)", n)
	}
}

// TestStoppable_Joins: an uncancelled join through Stoppable equals the
// plain one; a join whose context has ended returns no result, only the error.
func TestStoppable_Joins(t *testing.T) {
	vs, _ := vectorsOf(sampleTexts(t), 0)
	s := Prepare(nil, vs, true, Pool(2))
	x := NewIndex(s)
	want, _ := Exact(s, x, 5, Pool(2))
	var got [][]Neighbor
	if err := Catch(func() { got, _ = Exact(s, x, 5, Stoppable(context.Background(), Pool(2))) }); err != nil {
		t.Fatalf("uncancelled join: %v", err)
	}
	sameLists(t, "through Stoppable", got, want)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var res [][]Neighbor
	err := Catch(func() { res, _ = ZOLIP(s, Params{K: 5, Lambda: 8, Sigma: 0.6}, Stoppable(ctx, Pool(2))) })
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("cancelled join: err %v, %d lists; want context.Canceled and none", err, len(res))
	}
}

// TestCatch_OtherPanicsGoOn: Catch recovers only a Stoppable's stop.
func TestCatch_OtherPanicsGoOn(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want boom", r)
		}
	}()
	Catch(func() { panic("boom") })
	t.Fatal("Catch swallowed a foreign panic")
}
