package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/session"
)

// LeaseTTL is how long a turn outlives its holder's last heartbeat, for holders whose
// death the pid cannot tell (another pid namespace, a reused pid, a frozen process).
// The heartbeat runs every LeaseTTL/3.
const LeaseTTL = 30 * time.Second

// leases are the turns one Store holds, and the heartbeat that keeps them.
type leases struct {
	s     *Store
	owner string // this Store value, so that two opens in one process exclude each other
	pid   int
	host  string
	ttl   time.Duration

	// writeMu is held across acquire's and refresh's transactions, so that refresh
	// never removes a lease being taken.
	writeMu sync.Mutex
	mu      sync.Mutex // guards the fields below
	held    map[int64]string
	next    int64
	stopped bool
	orphans bool // a release's DELETE failed: refresh removes its row

	stopHeartbeat chan struct{}
	done          chan struct{}
}

func startLeases(s *Store) *leases {
	l := &leases{
		s: s, owner: session.NewID(), pid: os.Getpid(), host: hostID(), ttl: LeaseTTL,
		held: map[int64]string{}, stopHeartbeat: make(chan struct{}), done: make(chan struct{}),
	}
	go l.heartbeat()
	return l
}

func (l *leases) heartbeat() {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stopHeartbeat:
			return
		case <-t.C:
			// An error here is retried at the next tick; the lease lasts 3 ticks.
			_ = l.refresh()
		}
	}
}

// refresh moves the expiry of every lease held forward, and removes this store's
// rows that no turn holds any more (a release whose DELETE failed).
func (l *leases) refresh() error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.mu.Lock()
	ids := make([]int64, 0, len(l.held))
	for lease := range l.held {
		ids = append(ids, lease)
	}
	orphans := l.orphans
	l.orphans = false
	l.mu.Unlock()
	if len(ids) == 0 && !orphans {
		return nil // an idle store writes nothing
	}
	err := l.write(ids)
	if err != nil && orphans {
		l.mu.Lock()
		l.orphans = true
		l.mu.Unlock()
	}
	return err
}

func (l *leases) write(ids []int64) error {
	set, _ := json.Marshal(ids)
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
	defer cancel()
	tx, err := l.s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	if _, err := tx.ExecContext(ctx, `UPDATE turns SET expires = ? WHERE owner = ? AND lease IN (SELECT value FROM json_each(?))`,
		time.Now().Add(l.ttl).UnixNano(), l.owner, string(set)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM turns WHERE owner = ? AND lease NOT IN (SELECT value FROM json_each(?))`,
		l.owner, string(set)); err != nil {
		return err
	}
	return tx.Commit()
}

// busy reports whether a live turn holds session id, in the write transaction tx.
func (l *leases) busy(ctx context.Context, tx *sql.Tx, id string) (bool, error) {
	var (
		owner, host    string
		lease, expires int64
		pid            int
	)
	err := tx.QueryRowContext(ctx, `SELECT owner, lease, pid, host, expires FROM turns WHERE session_id = ?`, id).
		Scan(&owner, &lease, &pid, &host, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if owner == l.owner {
		l.mu.Lock()
		_, ok := l.held[lease]
		l.mu.Unlock()
		return ok, nil
	}
	if time.Now().UnixNano() > expires {
		return false, nil // its heartbeat stopped
	}
	if host == l.host && !pidAlive(pid) {
		return false, nil // its process is gone
	}
	return true, nil
}

func (l *leases) acquire(ctx context.Context, id string) (func(), error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	tx, err := l.s.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, l.s.fail("acquire "+id, err)
	}
	defer tx.Rollback() //nolint:errcheck
	var exists int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ?`, id).Scan(&exists); err != nil {
		return nil, l.s.fail("acquire "+id, err)
	}
	if exists == 0 {
		return nil, session.NotFound(id)
	}
	busy, err := l.busy(ctx, tx, id)
	if err != nil {
		return nil, l.s.fail("acquire "+id, err)
	}
	if busy {
		return nil, session.Busy(id)
	}
	l.mu.Lock()
	l.next++
	lease := l.next
	l.mu.Unlock()
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO turns (session_id, owner, lease, pid, host, expires) VALUES (?, ?, ?, ?, ?, ?)`,
		id, l.owner, lease, l.pid, l.host, time.Now().Add(l.ttl).UnixNano())
	if err != nil {
		return nil, l.s.fail("acquire "+id, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, l.s.fail("acquire "+id, err)
	}
	l.mu.Lock()
	l.held[lease] = id
	l.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { l.release(id, lease) }) }, nil
}

// release ends a turn. When its DELETE fails the row stays, but no heartbeat keeps it:
// the next refresh removes it, or it expires.
func (l *leases) release(id string, lease int64) {
	l.mu.Lock()
	stopped := l.stopped
	delete(l.held, lease)
	l.mu.Unlock()
	if stopped {
		return // Close removed every row of this store
	}
	ctx, cancel := context.WithTimeout(context.Background(), busyTimeout)
	defer cancel()
	if _, err := l.s.writer.ExecContext(ctx, `DELETE FROM turns WHERE session_id = ? AND owner = ? AND lease = ?`, id, l.owner, lease); err != nil {
		l.mu.Lock()
		l.orphans = true
		l.mu.Unlock()
	}
}

// stop ends the heartbeat and gives up every turn this store holds.
func (l *leases) stop() error {
	close(l.stopHeartbeat)
	<-l.done
	l.mu.Lock()
	l.stopped = true
	clear(l.held)
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), busyTimeout)
	defer cancel()
	_, err := l.s.writer.ExecContext(ctx, `DELETE FROM turns WHERE owner = ?`, l.owner)
	return err
}

// hostID names this machine and pid namespace: a pid means the same process only
// where both match.
func hostID() string {
	h, _ := os.Hostname()
	if ns, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		h += "/" + ns
	}
	return h
}
