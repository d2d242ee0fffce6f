package upstream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// watchDeath marks c dead as soon as its session ends or its process exits. When
// both happen, the process's exit status is the better explanation.
func (s *Supervisor) watchDeath(c *conn) {
	go func() {
		c.sess.Wait()
		if c.proc != nil {
			select {
			case <-c.proc.exited:
				c.markDead("process " + c.proc.exitDescription())
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
		c.markDead("connection closed by the server")
	}()
	if c.proc != nil {
		go func() {
			select {
			case <-c.proc.exited:
				c.markDead("process " + c.proc.exitDescription())
			case <-c.dead:
			}
		}()
	}
}

// watch blocks while c is healthy and returns why it stopped being so. It sends the
// heartbeats and follows tools/list_changed.
func (s *Supervisor) watch(c *conn) string {
	interval := s.cfg.Heartbeat
	if interval == 0 {
		interval = s.opts.Heartbeat
	}
	var tick <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	defer debounce.Stop()
	misses := 0
	for {
		select {
		case <-s.ctx.Done():
			return "closed"
		case <-c.dead:
			return c.deathReason()
		case <-tick:
			if err := s.probe(c, interval/2); err != nil {
				misses++
				s.log.Warn("heartbeat missed", "misses", misses, "err", err)
				if misses >= s.opts.HeartbeatMisses {
					return fmt.Sprintf("heartbeat: %d probes in a row failed (%v)", misses, err)
				}
			} else {
				misses = 0
			}
		case <-c.listChanged:
			debounce.Reset(s.opts.ListChangedDebounce)
		case <-debounce.C:
			s.relist(c, c.pending.Swap(0))
		}
	}
}

// probe checks that the server answers. Any JSON-RPC response proves it alive, so a
// server of the 2026-07-28 era, which has no ping, answering with an error is healthy
// too. Only silence (the timeout) or a broken transport is a miss.
func (s *Supervisor) probe(c *conn, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	err := c.sess.Ping(ctx, nil)
	var rpcErr *jsonrpc.Error
	if err == nil || errors.As(err, &rpcErr) {
		return nil
	}
	return err
}
