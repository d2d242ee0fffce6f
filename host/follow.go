package host

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/logging"
	"github.com/switchboard-mcp/switchboard/redact"
)

// A running Host follows its config file: servers added to it start and join the
// catalog, removed ones stop, changed ones restart, and unchanged ones run on
// untouched (hub.Reload). A change applies when asked (a program's SIGHUP, say), and
// when a check every Every finds the file's content changed and the same at the
// next check (an editor may be half-way through writing it). A config that does not
// load is logged with every problem in it, and the servers stay as they are.

// FollowOptions say how a Host follows its config file; nil, and every zero field,
// is the default.
type FollowOptions struct {
	// Data is the file's content as read before it was loaded (so that a change made
	// after that read is never missed); nil reads it now.
	Data []byte
	// Every is how often the file is checked; 0 checks only when Reload sends.
	Every time.Duration
	// Reload, when it sends, reloads the file at once (a program sends on SIGHUP).
	Reload <-chan struct{}
	// Trigger names what Reload stands for in the log ("SIGHUP"); "" is "request".
	Trigger string
}

// follower is the goroutine that follows the file; stop ends it and waits.
type follower struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (f *follower) stop() {
	f.cancel()
	<-f.done
}

// Follow starts following the config file at path until Close (once; a second
// call, or an empty path, does nothing). opts says when the file is read again:
// every FollowOptions.Every, and when FollowOptions.Reload sends (nil: neither, so
// nothing is reloaded). Every config loaded is reported as the log's warnings and
// registered with the Redactor.
func (h *Host) Follow(path string, opts *FollowOptions) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.follow != nil || h.closed || path == "" {
		return
	}
	var fo FollowOptions
	if opts != nil {
		fo = *opts
	}
	if fo.Data == nil {
		fo.Data, _ = os.ReadFile(path)
	}
	h.ed.mu.Lock()
	h.ed.path = path
	if h.ed.applied == nil {
		h.ed.applied = fo.Data
	}
	h.ed.mu.Unlock()
	if fo.Trigger == "" {
		fo.Trigger = "request"
	}
	checks := "on " + fo.Trigger + " only"
	if fo.Every > 0 {
		checks = "on " + fo.Trigger + " and every " + fo.Every.String()
	}
	h.log.Debug("following the config file", "source", path, "checks", checks)
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{cancel: cancel, done: make(chan struct{})}
	h.follow = f
	go h.followLoop(ctx, f, path, fo)
}

func (h *Host) followLoop(ctx context.Context, f *follower, path string, fo FollowOptions) {
	defer close(f.done)
	var tick <-chan time.Time
	if fo.Every > 0 {
		t := time.NewTicker(fo.Every)
		defer t.Stop()
		tick = t.C
	}
	var pending []byte  // a new content seen once, applied when seen again
	unreadable := false // the last check could not read the file (logged once)
	for {
		select {
		case <-ctx.Done():
			return
		case <-fo.Reload:
			data, err := os.ReadFile(path)
			if err != nil {
				h.log.Error("config not reloaded: the servers stay as they are", "trigger", fo.Trigger, "err", err)
				continue
			}
			pending = nil
			h.applyIfNew(path, data, fo.Trigger, true)
		case <-tick:
			data, err := os.ReadFile(path)
			if err != nil {
				if !unreadable {
					h.log.Warn("config file unreadable: the servers stay as they are", "err", err)
				}
				unreadable, pending = true, nil
				continue
			}
			unreadable = false
			switch {
			case len(bytes.TrimSpace(data)) == 0:
				// No config is empty: a file truncated by a writer that has not
				// written yet (a writer stalled on a loaded machine can leave it so
				// for two checks). Wait for its content.
				pending = nil
			case h.isApplied(data):
				pending = nil
			case !bytes.Equal(data, pending):
				pending = data
			default:
				pending = nil
				h.applyIfNew(path, data, "file changed", false)
			}
		}
	}
}

// isApplied reports whether data is the content last applied (or found not to
// load), by the follower or an edit.
func (h *Host) isApplied(data []byte) bool {
	h.ed.mu.Lock()
	defer h.ed.mu.Unlock()
	return bytes.Equal(data, h.ed.applied)
}

// reload loads data, read from path, and applies it to the hub by difference.
func (h *Host) reload(path string, data []byte, trigger string) {
	cfg, err := config.Parse(data, path, h.opts.ConfigOptions)
	if err != nil {
		h.log.Error("config not reloaded: the servers stay as they are", "trigger", trigger, "err", err)
		return
	}
	RegisterConfig(cfg, h.log, h.red)
	h.log.Info("reloading config", "source", path, "trigger", trigger, "servers", len(cfg.Servers), "profiles", len(cfg.Settings.Profiles))
	if err := h.hub.Reload(cfg); err != nil {
		h.log.Error("config reload", "err", err)
	}
	h.access.Set(profilesOf(cfg)) // after the servers: a profile may name one just added
}

// RegisterConfig registers a loaded config with the program: its secrets with red
// (masked in every log line and error from then on), its warnings and the servers
// it skipped with log. What a program does with each config it loads, and a Host
// with each config it reloads.
func RegisterConfig(cfg *config.Config, log *slog.Logger, red *redact.Redactor) {
	red.Add(cfg.Secrets()...)
	for _, w := range cfg.Warnings {
		log.Warn("config: " + w)
	}
	for _, name := range cfg.Skipped {
		log.Info("config: skipping server that names this gateway", logging.KeyServer, name)
	}
}
