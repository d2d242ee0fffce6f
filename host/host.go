package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/redact"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/signin"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// Options configure a Host. A nil *Options, like each zero field, means the
// defaults: the config's own settings, no logs, a redactor of the Host's own.
type Options struct {
	// Logger gets the logs of every part; nil discards them.
	Logger *slog.Logger
	// Redactor masks secrets in every error, failed result and log line of the
	// parts: the config's (every config followed is registered), the model's key,
	// the session store's DSN. nil: one of the Host's own ([Host.Redactor]); a
	// program passes the one its own log handler masks with.
	Redactor *redact.Redactor
	// Model, Agent and Sessions, when set, take the place of the config's
	// "switchboard" settings of that name (a command line's flags over the file).
	Model    *config.ModelSettings
	Agent    *config.AgentSettings
	Sessions *config.SessionSettings
	// ModelHow is how this program's user gives a model other than by the config,
	// added to what says there is none (ErrNoModel: the API's 503, the log of
	// chat turns off): the CLI's "pass --model (and --base-url for a local
	// server)". "": the config's settings alone are named.
	ModelHow string
	// GatewayDeferred, when set, is the gateway's deferred mode over the config's
	// "deferred" (whose threshold and pins stay): switchboard mcp --deferred.
	GatewayDeferred *config.DeferredSettings
	// Version is what the gateway's serverInfo and the API's /health report.
	Version string
	// ConfigOptions are used to parse the config file again when it changes
	// (Follow): how to ask for ${input:...} values, say. nil: config's defaults.
	ConfigOptions *config.Options
	// DataDir is the data directory (--data-dir): the sign-ins of remote servers
	// are kept in its signin directory. "": the user's state directory, where the
	// SQLite sessions live by default too.
	DataDir string
	// SignInStore, when set, keeps the sign-ins instead of the files under DataDir.
	SignInStore signin.Store
	// PerUser bounds the persons' own connections to the servers whose "oauth" says
	// "perUser" (its Idle and Max; the Host gives its OAuth, the persons' own
	// sign-ins). nil: hub.DefaultPerUserIdle and hub.DefaultPerUserMax.
	PerUser *hub.PerUserOptions
}

// Host is the running system of one config: its servers (a hub), their catalog's
// search index, and, made on demand, the model, the session store, the agent, the
// MCP gateway and the HTTP API over them. Close stops everything it started.
type Host struct {
	opts Options
	log  *slog.Logger
	red  *redact.Redactor
	cfg  *config.Config // as given to New; the hub follows reloads
	hub  *hub.Hub
	cat  *deferred.Catalog
	// access is the config's profiles, set again with each config applied (access.go).
	access *access.Policy
	// signins sign in to the remote servers that ask for it; signInErr says why
	// their store is not the one the settings ask for (see SignInError).
	signins      *signin.Handlers
	signInErr    error
	closeSignIns func() // the sign-in store's Close, when the Host opened it

	mu      sync.Mutex
	closers []func() // run in reverse order by Close
	closed  bool
	model   *modelOnce
	store   *session.Janitor
	follow  *follower
	ed      editor // the edits of the servers, and what the follower applied (edit.go)
}

// New makes the Host of cfg: the hub of its servers (none started yet: Start) and
// the catalog's search index, shared by everything made from the Host.
func New(cfg *config.Config, opts *Options) *Host {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Redactor == nil {
		o.Redactor = &redact.Redactor{}
	}
	h := &Host{opts: o, log: o.Logger, red: o.Redactor, cfg: cfg}
	st, closeStore, err := o.signInStore(h.SessionSettings(), o.Redactor)
	if err != nil {
		h.signInErr = &SettingsError{Err: err}
	}
	h.closeSignIns = closeStore
	h.signins = signin.NewHandlers(st, &signin.Options{Logger: o.Logger, Redactor: o.Redactor})
	var perUser hub.PerUserOptions
	if o.PerUser != nil {
		perUser = *o.PerUser
	}
	perUser.OAuth = h.signins.ForPerson // a call of a person's goes over their own sign-in
	h.hub = hub.New(cfg, &hub.Options{Logger: o.Logger, Redactor: o.Redactor, Upstream: &upstream.Options{OAuth: h.signins.For},
		PerUser: &perUser})
	h.cat = deferred.NewCatalog(h.hub) // nothing is indexed until a search
	h.access = access.NewPolicy(profilesOf(cfg))
	h.model = &modelOnce{}
	return h
}

// Config is the config the Host was made with (the hub follows the file's changes
// from then on; see Follow).
func (h *Host) Config() *config.Config { return h.cfg }

// Hub is the Host's servers as one catalog.
func (h *Host) Hub() *hub.Hub { return h.hub }

// Catalog is the search index of the hub's catalog that the agent, the gateway and
// the API share.
func (h *Host) Catalog() *deferred.Catalog { return h.cat }

// Redactor is the Host's redactor (Options.Redactor, or its own).
func (h *Host) Redactor() *redact.Redactor { return h.red }

// Start starts every server and waits for them as hub.Start does, telling them caps
// as their client's capabilities (servers offer tools according to them; nil: none).
// A collision under naming "never" is a *tool.CollisionError (the config's fault),
// sign-ins that cannot be kept as the settings say a *SettingsError (SignInError);
// any other error is a required server that did not come up.
func (h *Host) Start(ctx context.Context, caps *mcp.ClientCapabilities) error {
	if err := h.SignInError(); err != nil {
		return err
	}
	if caps != nil {
		h.hub.SetCapabilities(caps)
	}
	return h.hub.Start(ctx)
}

// ServerRequests answers what servers ask their client while the Host's own calls
// run (the agent's, the API's): sampling with the model, for the servers whose
// config says "sampling": true, and elicitation with elicit (nil declines). It is
// added to the hub as a peer until Close. Give its Capabilities to Start.
func (h *Host) ServerRequests(model llm.Model, elicit func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error)) *agent.ServerRequests {
	ms := h.ModelSettings()
	reqs := &agent.ServerRequests{
		Model:     model,
		MaxTokens: ms.MaxTokens,
		AllowSampling: func(server string) bool {
			srv, ok := h.hub.Server(server)
			return model != nil && ok && srv.Sampling
		},
		Elicit: elicit,
		Logger: h.log,
	}
	link := h.hub.AddPeer(reqs)
	h.onClose(link.Remove)
	return reqs
}

// AnySampling reports whether some server of the config may sample: whether a
// ServerRequests' Capabilities should offer sampling.
func (h *Host) AnySampling() bool {
	return slices.ContainsFunc(h.cfg.Servers, func(s config.Server) bool { return s.Sampling })
}

// onClose registers fn to run at Close, before what was registered earlier; after
// Close, it runs fn at once.
func (h *Host) onClose(fn func()) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		fn()
		return
	}
	h.closers = append(h.closers, fn)
	h.mu.Unlock()
}

// Close stops following the config file (waiting for a reload under way), closes
// what was made from the Host in the reverse order (the API's and the gateway's
// parts, the session store), stops every server, and returns once every child
// process is gone.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	f, closers, store := h.follow, h.closers, h.store
	h.mu.Unlock()
	if f != nil {
		f.stop()
	}
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		closers[i]()
	}
	if store != nil {
		errs = append(errs, store.Close())
	}
	errs = append(errs, h.hub.Close())
	h.signins.Close()
	if h.closeSignIns != nil {
		h.closeSignIns() // after the servers: a refresh under way saves to it
	}
	return errors.Join(errs...)
}

// SettingsError is a setting the Host cannot work with: no model configured, no key
// for the provider's API, a session store path that cannot be written. It is the
// caller's to fix, as a config error is (the CLI exits 2).
type SettingsError struct{ Err error }

func (e *SettingsError) Error() string { return e.Err.Error() }
func (e *SettingsError) Unwrap() error { return e.Err }

func settingsErrorf(format string, args ...any) error {
	return &SettingsError{Err: fmt.Errorf(format, args...)}
}
