package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/host"
)

// service is the start-up and shut-down that the long-running commands (mcp, and the
// ones that serve or chat) share around a host.Host: the signals they take, the config
// loaded and then followed, the servers started with the capabilities of whoever
// answers their requests, and the order everything stops in. Start-up is in two
// halves so that a command can bind its address between them: a port in use ends it
// before any server has started.
type service struct {
	*host.Host
	a     *app
	file  configFile
	watch time.Duration

	hup         chan os.Signal
	stopSignals func()
	// reload carries SIGHUP to the host once the servers are up; forwarding ends it.
	reload     chan struct{}
	forwarding chan struct{}
}

// openService loads the config and makes the host, without starting a server; flags
// override the config's model, agent and session settings (nil: none), gwDeferred its
// gateway's deferred mode (nil: the config's). It ignores
// SIGPIPE: a client that goes away may leave stdout (or, over HTTP, a stderr read by
// a pipe) broken while we write to it, and Go would kill the process for that,
// skipping the servers' shutdown; ignored, the write fails and the command ends as
// for any client that leaves. It catches SIGHUP from now on, so that one sent before
// the servers are up waits for them instead of ending the process. Close undoes it
// all.
func (a *app) openService(watch time.Duration, flags *agentFlags, gwDeferred *host.DeferredSettings) (*service, error) {
	signal.Ignore(syscall.SIGPIPE)
	s := &service{a: a, watch: watch}
	s.hup, s.stopSignals = reloadSignals()
	s.file = a.readConfigFile()
	cfg, err := a.loadConfig()
	if err != nil {
		s.stopSignals()
		return nil, err
	}
	opts := &host.Options{GatewayDeferred: gwDeferred}
	if flags != nil {
		if err := flags.apply(cfg, opts, a.red); err != nil {
			s.stopSignals()
			return nil, err
		}
	}
	s.Host = host.New(cfg, a.hostOptions(opts))
	return s, nil
}

// hostOptions are the options of every host the commands make: the app's logger and
// redactor, the version, the terminal's answers to ${input:...} on a reload, over
// the command's own (opts, which may be nil).
func (a *app) hostOptions(opts *host.Options) *host.Options {
	var o host.Options
	if opts != nil {
		o = *opts
	}
	o.Logger, o.Redactor, o.Version, o.ConfigOptions = a.log, a.red, versionNumber(), a.configOptions()
	o.ModelHow = "pass --model (and --base-url for a local server)"
	if o.DataDir == "" {
		o.DataDir = a.dataDir
	}
	return &o
}

// start starts the servers, telling them caps as their client's capabilities (the
// servers offer tools according to them), and from then on follows the config file. A
// failed start is an exitError: 2 for a naming collision (the config's fault), 1 for a
// required server that did not come up.
func (s *service) start(ctx context.Context, caps *host.ClientCapabilities) error {
	return s.started(s.Host.Start(ctx, caps))
}

// startShared starts the servers as start does, for clients not known in advance
// (over HTTP): they are told every capability the gateway can forward.
func (s *service) startShared(ctx context.Context) error {
	return s.started(s.Host.StartShared(ctx))
}

// started follows the config file once the servers started; err is their start's.
func (s *service) started(err error) error {
	if err != nil {
		return &exitError{code: startExitCode(err), err: err}
	}
	s.reload, s.forwarding = make(chan struct{}), make(chan struct{})
	go s.forwardSIGHUP()
	s.Follow(s.file.path, &host.FollowOptions{Data: s.file.data, Every: s.watch, Reload: s.reload, Trigger: "SIGHUP"})
	return nil
}

// forwardSIGHUP passes each SIGHUP on to the host's reload, until Close.
func (s *service) forwardSIGHUP() {
	for {
		select {
		case <-s.forwarding:
			return
		case <-s.hup:
			if s.file.path == "" {
				s.a.log.Warn("SIGHUP: no config file to reload (the built-in demo servers run)")
				continue
			}
			select {
			case s.reload <- struct{}{}:
			case <-s.forwarding:
				return
			}
		}
	}
}

// deferredMode names the gateway's deferred mode for the log ("never" when off).
func (s *service) deferredMode() string {
	if d := s.GatewayDeferred(); d != nil {
		return d.String()
	}
	return host.DeferredNever
}

// Close stops following the config (waiting for a reload under way) and every
// server, then stops catching SIGHUP.
func (s *service) Close() {
	if s.forwarding != nil {
		close(s.forwarding)
	}
	s.Host.Close()
	s.stopSignals()
}

// settingsError maps the host's errors for a command: a setting the host cannot work
// with is a usage error (exit 2), with the SQLite store's path named by where it came
// from (dataDir: the --data-dir given; the config's path; the default); anything else
// is the operation's failure (exit 1).
func settingsError(err error, dataDir string, fromConfig bool) error {
	var (
		se  *host.SettingsError
		spe *host.StorePathError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &spe) && dataDir != "":
		return usageError("--data-dir %s: %v: give a directory that can be created and written to", dataDir, spe.Err)
	case errors.As(err, &spe) && fromConfig:
		return usageError(`session store %s (the config's "sessions": {"path"}): %v: give a file in a directory that can be created and written to`, spe.Path, spe.Err)
	case errors.As(err, &spe):
		return usageError("session store %s: %v: give --data-dir a directory that can be created and written to", spe.Path, spe.Err)
	case errors.As(err, &se):
		return usageError("%v", se.Err)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code: exitFailed, err: err}
}
