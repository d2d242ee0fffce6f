package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/hub"
)

// service is the start-up and shut-down that the long-running commands (mcp, and the
// ones that serve or chat) share: the signals they take, the config loaded and then
// followed, the hub started with the capabilities of whoever answers the servers'
// requests, and the order everything stops in. Start-up is in two halves so that a
// command can bind its address between them: a port in use ends it before any server
// has started.
type service struct {
	a   *app
	cfg *config.Config // as loaded at start; the hub follows the file's changes
	hub *hub.Hub
	// catalog is the hub's search index, one for the gateway, the API and the agent.
	catalog *deferred.Catalog
	file    configFile
	watch   time.Duration
	// deferred, if set, is the gateway's deferred mode from the command line (mcp
	// --deferred), over the config's.
	deferred *config.DeferredSettings

	hup         chan os.Signal
	stopSignals func()
	stopFollow  func()
}

// openService loads the config and makes the hub, without starting a server. It
// ignores SIGPIPE: a client that goes away may leave stdout (or, over HTTP, a stderr
// read by a pipe) broken while we write to it, and Go would kill the process for that,
// skipping the servers' shutdown; ignored, the write fails and the command ends as for
// any client that leaves. It catches SIGHUP from now on, so that one sent before the
// servers are up waits for them instead of ending the process. Close undoes it all.
func (a *app) openService(watch time.Duration) (*service, error) {
	signal.Ignore(syscall.SIGPIPE)
	s := &service{a: a, watch: watch, stopFollow: func() {}}
	s.hup, s.stopSignals = reloadSignals()
	s.file = a.readConfigFile()
	cfg, err := a.loadConfig()
	if err != nil {
		s.stopSignals()
		return nil, err
	}
	s.cfg, s.hub = cfg, hub.New(cfg, &hub.Options{Logger: a.log, Redactor: a.red})
	s.catalog = deferred.Follow(s.hub) // nothing is indexed until a search
	return s, nil
}

// start starts the servers, telling them caps as their client's capabilities (the
// servers offer tools according to them), and from then on follows the config file. A
// failed start is an exitError: 2 for a naming collision (the config's fault), 1 for a
// required server that did not come up.
func (s *service) start(ctx context.Context, caps *mcp.ClientCapabilities) error {
	s.hub.SetCapabilities(caps)
	if err := s.hub.Start(ctx); err != nil {
		return &exitError{code: startExitCode(err), err: err}
	}
	s.stopFollow = s.a.followConfig(s.hub, s.file, s.watch, s.hup)
	return nil
}

// gatewayOptions are the options of a gateway in front of the service's hub. The
// error is the embeddings endpoint's configuration (deferred mode's search).
func (s *service) gatewayOptions() (*gateway.Options, error) {
	policy, err := s.gatewayPolicy()
	if err != nil {
		return nil, err
	}
	return &gateway.Options{Name: "switchboard", Version: versionNumber(), Logger: s.a.log, Deferred: policy, Catalog: s.catalog}, nil
}

// gatewayDeferred is the gateway's deferred setting: the command line's mode over the
// config's (whose threshold and pinned tools stay), or the config's when it gives
// one; nil when neither asks for it, or the mode is never.
func (s *service) gatewayDeferred() *config.DeferredSettings {
	d := s.cfg.Settings.Deferred
	switch {
	case s.deferred != nil:
		d.Mode, d.Share = s.deferred.Mode, s.deferred.Share
	case !d.Explicit:
		return nil
	}
	if d.Mode == config.DeferredNever {
		return nil
	}
	return &d
}

// deferredMode names the gateway's deferred mode for the log ("never" when off).
func (s *service) deferredMode() string {
	if d := s.gatewayDeferred(); d != nil {
		return d.String()
	}
	return config.DeferredNever
}

// gatewayPolicy is the gateway's deferred mode as deferred.Policy, or nil.
func (s *service) gatewayPolicy() (*deferred.Policy, error) {
	d := s.gatewayDeferred()
	if d == nil {
		return nil, nil
	}
	return s.a.deferredPolicy(s.cfg, *d, s.cfg.Settings.Model)
}

// Close stops following the config (waiting for a reload under way), stops every
// server, and stops catching SIGHUP, in that order.
func (s *service) Close() {
	s.stopFollow()
	s.hub.Close()
	s.stopSignals()
}
