package main

import (
	"bytes"
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
)

// A running gateway follows its config file: servers added to it start and join the
// catalog, removed ones stop, changed ones restart, and unchanged ones run on
// untouched (hub.Reload). A change applies on SIGHUP, and when a check every --watch
// interval finds the file's content changed and the same at the next check (an editor
// may be half-way through writing it). A config that does not load is logged with
// every problem in it, and the servers stay as they are.

// reloadSignals starts catching SIGHUP, the signal that asks for a reload, so that
// one sent before the servers are up waits for them instead of ending the process.
// stop undoes it.
func reloadSignals() (hup chan os.Signal, stop func()) {
	hup = make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	return hup, func() { signal.Stop(hup) }
}

// configFile is the config file a command loaded, as read before loading it: a change
// made after that read is never missed. A zero configFile is the built-in demo config.
type configFile struct {
	path string
	data []byte
}

// readConfigFile reads the file loadConfig is about to load; "" (the demo) reads nothing,
// and a read error is loadConfig's to report.
func (a *app) readConfigFile() configFile {
	path := a.configSource()
	if path == "" {
		return configFile{}
	}
	data, _ := os.ReadFile(path)
	return configFile{path, data}
}

// followConfig applies the changes of f to h, on SIGHUP (from hup) and, when every is
// above 0, when checks that often find them, until the returned stop is called, which
// waits for a reload under way.
func (a *app) followConfig(h *hub.Hub, f configFile, every time.Duration, hup <-chan os.Signal) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	if f.path != "" {
		checks := "on SIGHUP only"
		if every > 0 {
			checks = "on SIGHUP and every " + every.String()
		}
		a.log.Debug("following the config file", "source", f.path, "checks", checks)
	}
	go func() {
		defer close(done)
		var tick <-chan time.Time
		if every > 0 && f.path != "" {
			t := time.NewTicker(every)
			defer t.Stop()
			tick = t.C
		}
		applied := f.data   // the content last applied, or last found not to load
		var pending []byte  // a new content seen once, applied when seen again
		unreadable := false // the last check could not read the file (logged once)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if f.path == "" {
					a.log.Warn("SIGHUP: no config file to reload (the built-in demo servers run)")
					continue
				}
				data, err := os.ReadFile(f.path)
				if err != nil {
					a.log.Error("config not reloaded: the servers stay as they are", "trigger", "SIGHUP", "err", err)
					continue
				}
				applied, pending = data, nil
				a.reloadConfig(h, f.path, data, "SIGHUP")
			case <-tick:
				data, err := os.ReadFile(f.path)
				if err != nil {
					if !unreadable {
						a.log.Warn("config file unreadable: the servers stay as they are", "err", err)
					}
					unreadable, pending = true, nil
					continue
				}
				unreadable = false
				switch {
				case len(bytes.TrimSpace(data)) == 0:
					// No config is empty: a file truncated by a writer that has not
					// written yet (a writer stalled on a loaded machine can leave it
					// so for two checks). Wait for its content.
					pending = nil
				case bytes.Equal(data, applied):
					pending = nil
				case !bytes.Equal(data, pending):
					pending = data
				default:
					applied, pending = data, nil
					a.reloadConfig(h, f.path, data, "file changed")
				}
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// reloadConfig loads data, read from path, and applies it to h by difference.
func (a *app) reloadConfig(h *hub.Hub, path string, data []byte, trigger string) {
	cfg, err := config.Parse(data, path, a.configOptions())
	if err != nil {
		a.log.Error("config not reloaded: the servers stay as they are", "trigger", trigger, "err", err)
		return
	}
	a.adopt(cfg)
	a.log.Info("reloading config", "source", path, "trigger", trigger, "servers", len(cfg.Servers))
	if err := h.Reload(cfg); err != nil {
		a.log.Error("config reload", "err", err)
	}
}
