package sessiontest

import (
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/session"
)

// DeadHolderFreesTurn checks, for a store shared by processes or hosts, that a turn
// whose holder dies is free again within the given time: the holder is killed (SIGKILL:
// no release, no Close), and st's Acquire gets the turn. hold starts a process that
// takes session id's turn, and returns it once the turn is held.
func DeadHolderFreesTurn(t *testing.T, st session.Store, hold func(t *testing.T, id string) *exec.Cmd, within time.Duration) {
	t.Helper()
	s := &session.Session{}
	mustCreate(t, st, s)
	holder := hold(t, s.ID)
	if _, err := st.Acquire(t.Context(), s.ID); !errors.Is(err, session.ErrBusy) {
		t.Fatalf("Acquire while another process holds the turn: %v, want ErrBusy", err)
	}
	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait() // reaped: a zombie still has its pid
	for deadline := time.Now().Add(within); ; time.Sleep(10 * time.Millisecond) {
		release, err := st.Acquire(t.Context(), s.ID)
		if err == nil {
			release()
			return
		}
		if !errors.Is(err, session.ErrBusy) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead holder's turn is still busy %s later", within)
		}
	}
}
