package upstream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
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
// too. Only silence (the timeout) or a broken transport is a miss: an HTTP server
// that went away, whose refusal the SDK hands back as a JSON-RPC error (replied).
func (s *Supervisor) probe(c *conn, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	err := c.sess.Ping(ctx, nil)
	if err == nil || replied(err) {
		return nil
	}
	if ue := s.unreachable(err); ue != nil {
		// Not the SDK's wrapping ("calling "ping": sending "ping": rejected by transport: …").
		err = ue
	}
	return errors.New(s.redact(err.Error()))
}

// codeRejected is the code of the SDK's jsonrpc2.ErrRejected (an internal package),
// a *jsonrpc.Error that its HTTP transports wrap around a request that got no
// answer: the server could not be reached (client.Do failed), or answered 429, 502,
// 503 or 504. The SDK keeps the connection for the next request, so that a stateless
// HTTP server that went away stayed "ready" with every request failing.
const codeRejected = -32005

// replied reports whether err carries the server's own JSON-RPC error: the first
// *jsonrpc.Error in its chain that is not the transport's rejection (an HTTP error
// whose body is a JSON-RPC error has the server's before the rejection).
func replied(err error) bool {
	var rpcErr *jsonrpc.Error
	return errors.As(err, &rpcErr) && rpcErr.Code != codeRejected
}

// unreachable returns the transport's error when err is a request that never got
// to the server or whose answer never came back (the HTTP client's *url.Error for a
// URL of the server's host, a refused or reset connection), and not the server's
// reply; nil otherwise. An authorization server out of reach is not the server's
// fault: its errors are left alone.
func (s *Supervisor) unreachable(err error) *url.Error {
	var ue *url.Error
	if replied(err) || !errors.As(err, &ue) {
		return nil
	}
	got, err1 := url.Parse(ue.URL)
	own, err2 := url.Parse(s.cfg.URL)
	if err1 != nil || err2 != nil || got.Host != own.Host {
		return nil
	}
	return ue
}

// notDialled reports whether the transport's error is a failure to open the
// connection (refused, no route, unknown host): not one byte of the request left.
func notDialled(ue *url.Error) bool {
	var op *net.OpError
	return errors.As(ue, &op) && op.Op == "dial"
}

// giveUp marks c dead when err says its server could not be reached: a request's
// transport failure moves the server to reconnecting at once, as a closed stdio pipe
// does, instead of waiting for the heartbeat. It returns the transport's error, nil
// when err is something else or when ctx (the request's) or c had ended already.
func (s *Supervisor) giveUp(ctx context.Context, c *conn, err error) *url.Error {
	ue := s.unreachable(err)
	if ue == nil || ctx.Err() != nil || c.calls.Err() != nil {
		return nil
	}
	c.markDead("the server could not be reached: " + s.redact(ue.Error()))
	return ue
}
