package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/invindex"
)

// startNodeProc starts `plagd node` on a loopback port and returns the
// process and the address it logged.
func startNodeProc(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(plagdBin(t), append([]string{"node", "--listen", "127.0.0.1:0", "--log-format", "json"}, args...)...)
	cmd.Env = append(os.Environ(), "PLAGD_CONFIG=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		var line struct{ Message, Listen string }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "node serving" {
			go func() { // keep draining the log
				for sc.Scan() {
				}
			}()
			return cmd, line.Listen
		}
		t.Log(sc.Text())
	}
	t.Fatal("plagd node exited before serving")
	return nil, ""
}

type mapSource map[int64]string

func (m mapSource) Fresh(_ context.Context, ids []int64) ([]cluster.SourceText, error) {
	out := make([]cluster.SourceText, len(ids))
	for i, id := range ids {
		out[i] = cluster.SourceText{ID: id, Text: m[id]}
	}
	return out, nil
}

func (m mapSource) Stored(ctx context.Context, ids []int64) ([]cluster.SourceText, error) {
	return m.Fresh(ctx, ids)
}

// TestNode_Processes: two `plagd node` processes, given their ranges by Install, driven
// by a master give the rows of the in-process run; a node without
// authentication refuses to start; SIGTERM stops a node cleanly.
func TestNode_Processes(t *testing.T) {
	if out, code := runNode(t, "--listen", "127.0.0.1:0"); code != cli.ExitFailure || !strings.Contains(out, "neither mutual TLS nor a shared secret") {
		t.Fatalf("node without authentication: exit %d\n%s", code, out)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sec, err := remote.ReadSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	defaults := config.Default()
	params := defaults.Params()
	bounds := invindex.SplitRange(params.SpaceSize(), 2)
	var procs []*exec.Cmd
	var nodes []cluster.Node
	for i := range 2 {
		p, addr := startNodeProc(t, "--secret-file", secret)
		c, err := remote.Dial(context.Background(), addr, remote.Security{Secret: sec}, remote.Options{Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// A node process starts with no range: the master assigns it by Install.
		if lo, hi := c.Range(); lo != hi {
			t.Fatalf("fresh node reports range [%d,%d), want none", lo, hi)
		}
		if err := c.Install(cluster.EmptyState(bounds[i], bounds[i+1]), 0); err != nil {
			t.Fatal(err)
		}
		if lo, hi := c.Range(); lo != bounds[i] || hi != bounds[i+1] {
			t.Fatalf("after Install the node reports [%d,%d), want [%d,%d)", lo, hi, bounds[i], bounds[i+1])
		}
		procs, nodes = append(procs, p), append(nodes, c)
	}

	src := mapSource{}
	words := strings.Fields(strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau ", 3))
	for id := int64(1); id <= 30; id++ {
		var b strings.Builder
		for j := range 40 {
			fmt.Fprintf(&b, "%s%d ", words[(int(id)*7+j*j)%len(words)], (int(id)+j)%5)
		}
		src[id] = b.String()
	}
	plan := cluster.Plan{Run: 1, Full: true, Params: params, MinShared: 1, TopK: 5, BatchSize: 4}
	for id := range src {
		plan.Upsert = append(plan.Upsert, id)
	}
	slices.Sort(plan.Upsert)
	var rows [2][]cluster.Row
	for i, m := range []*cluster.Master{
		cluster.NewMaster(cluster.NewLocalNodes(params, 2), zerolog.Nop()),
		cluster.NewMaster(nodes, zerolog.Nop()),
	} {
		out, err := m.Run(context.Background(), plan, src)
		if err != nil {
			t.Fatalf("master %d: %v", i, err)
		}
		if err := m.Commit(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		rows[i] = out.Rows
		slices.SortFunc(rows[i], func(x, y cluster.Row) int {
			if x.Doc != y.Doc {
				return int(x.Doc - y.Doc)
			}
			return int(x.Other - y.Other)
		})
	}
	if len(rows[0]) == 0 || !slices.Equal(rows[0], rows[1]) {
		t.Fatalf("node processes: %d rows, in-process %d rows, or they differ", len(rows[1]), len(rows[0]))
	}

	for _, p := range procs {
		p.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- p.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("node after SIGTERM: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("node did not stop within 10 s of SIGTERM")
		}
	}
}

func runNode(t *testing.T, args ...string) (string, int) {
	cmd := exec.Command(plagdBin(t), append([]string{"node"}, args...)...)
	cmd.Env = append(os.Environ(), "PLAGD_CONFIG=")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}
