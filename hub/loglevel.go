package hub

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay"
)

// SetLogLevel asks every server with logging, now and after reconnects (and servers
// added later), for log messages at level and above — or at a more verbose level
// that a Peer asked for (see AddPeer): the servers get the most verbose wanted.
func (h *Hub) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error {
	h.levelMu.Lock()
	defer h.levelMu.Unlock()
	h.ownLevel = level
	return h.applyLevel(ctx, true)
}

// applyLevel asks the servers for the most verbose level the program and the Peers
// want, if it is not the one they were asked for (always when force). With none
// wanted they keep the last. h.levelMu is held.
func (h *Hub) applyLevel(ctx context.Context, force bool) error {
	levels := []mcp.LoggingLevel{h.ownLevel}
	for _, l := range *h.peers.Load() {
		levels = append(levels, l.level)
	}
	level := relay.MostVerbose(levels...)
	h.mu.Lock()
	if level == "" || (level == h.logLevel && !force) {
		h.mu.Unlock()
		return nil
	}
	h.logLevel = level
	sups := h.supervisors()
	h.mu.Unlock()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, s := range sups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.SetLogLevel(ctx, level); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("server %q: %w", s.Name(), err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
