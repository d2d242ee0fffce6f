package host

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/usage"
)

// Agent is an agent over the hub's catalog with the configured model, agent
// settings (steps, parallel calls, system prompt, deferred mode over the shared
// Catalog) and session store, made with Model and Sessions. opts, when not nil,
// gives what the settings do not: Approve, Elicit, OnEvent, ToolTimeout; its other fields,
// when set, take the place of the settings'. Without opts.Approve the servers'
// approve policy holds: a call that needs approval is denied, as there is nobody to
// ask (Conversations runs turns that ask a person). (An agent with another model or
// store is agent.New's.)
func (h *Host) Agent(ctx context.Context, opts *agent.Options) (*agent.Agent, error) {
	model, err := h.Model()
	if err != nil {
		return nil, err
	}
	store, err := h.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	as, ms := h.AgentSettings(), h.ModelSettings()
	policy, err := h.DeferredPolicy(*as.Deferred)
	if err != nil {
		return nil, err
	}
	o := agent.Options{
		Tools:         h.hub,
		Deferred:      policy,
		Catalog:       h.cat,
		NativeSearch:  as.Deferred.Native,
		System:        as.System,
		MaxSteps:      as.MaxSteps,
		ParallelTools: as.ParallelTools,
		MaxTokens:     ms.MaxTokens,
		Temperature:   ms.Temperature,
		Logger:        h.log,
	}
	if opts != nil {
		p := *opts
		o.Approve, o.Elicit, o.OnEvent, o.ToolTimeout = p.Approve, p.Elicit, p.OnEvent, p.ToolTimeout
		if p.Tools != nil {
			o.Tools, o.Catalog = p.Tools, nil // another toolset: its own index
		}
		if p.System != "" {
			o.System = p.System
		}
		if p.MaxSteps != 0 {
			o.MaxSteps = p.MaxSteps
		}
		if p.ParallelTools != 0 {
			o.ParallelTools = p.ParallelTools
		}
		if p.Logger != nil {
			o.Logger = p.Logger
		}
	}
	if o.Approve == nil {
		// "An agent asks" (docs/config.md): an agent of its own has nobody to ask,
		// so a call that needs approval is denied; a Runner (Conversations) asks a
		// person for each turn.
		o.Approve = func(_ context.Context, c agent.Call) agent.Decision {
			if !h.NeedsApproval(c) {
				return agent.Allow()
			}
			return agent.Deny("the user must approve " + c.Name + " and nobody was there to ask")
		}
	}
	return agent.New(model, store.Store(), &o), nil
}

// GatewayDeferred is the gateway's deferred setting: Options.GatewayDeferred's mode
// over the config's (whose threshold and pins stay), or the config's when it gives
// one; nil when neither asks for it, or the mode is never.
func (h *Host) GatewayDeferred() *config.DeferredSettings {
	d := h.cfg.Settings.Deferred
	switch {
	case h.opts.GatewayDeferred != nil:
		d.Mode, d.Share = h.opts.GatewayDeferred.Mode, h.opts.GatewayDeferred.Share
	case !d.Explicit:
		return nil
	}
	if d.Mode == config.DeferredNever {
		return nil
	}
	return &d
}

// Gateway is the MCP gateway over the hub, in its deferred mode (GatewayDeferred)
// over the shared Catalog, named "switchboard" with Options.Version. opts, when not
// nil, gives the rest (Start, for a gateway over stdio that starts the servers with
// its client's capabilities); Name, Version, Logger, Deferred and Catalog are the
// Host's unless set. The Host closes it at Close; serve it with Serve, Listen,
// ServeStdio or Handler.
func (h *Host) Gateway(opts *gateway.Options) (*gateway.Gateway, error) {
	var o gateway.Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "switchboard"
	}
	if o.Version == "" {
		o.Version = h.opts.Version
	}
	if o.Logger == nil {
		o.Logger = h.log
	}
	if o.Catalog == nil {
		o.Catalog = h.cat
	}
	if d := h.GatewayDeferred(); d != nil && o.Deferred == nil {
		p, err := h.DeferredPolicy(*d)
		if err != nil {
			return nil, err
		}
		o.Deferred = p
	}
	gw := gateway.New(h.hub, &o)
	h.onClose(func() { gw.Close() })
	return gw, nil
}

// API is the HTTP API over the Host: the hub's servers, tools and search; sessions
// and chat completions run by Agent (a model that is missing or not usable turns
// them off, and they answer 503 saying why, while everything else works); the MCP
// gateway at /mcp and /sse; the server requests of the agent's calls answered by
// the model (ServerRequests), their questions by the person of each session's turn;
// the sign-in of a server that waits for one (SignIn, through the API's
// /oauth/callback); the servers changed at run time and written to the config file
// (AddServer, PatchServer, RemoveServer, behind POST, PATCH and DELETE
// /v1/servers). opts, when not nil, gives the HTTP settings (Token, CORSOrigin,
// PublicURL, MaxRequestBytes, timeouts, Registry, ...); what the Host owns (the hub,
// Catalog, Sessions, Conversations, Gateway, Model, SignIn, Servers, Version, Logger,
// and Access: the config's profiles, followed) it fills in, and RequestsPerMinute
// from "serve.limits" unless set. With the config's "serve":
// {"auth"} and no opts.Identify, every request but the public ones needs a token of
// that provider (Verifier; the Issuer is the provider's): an error when the provider
// cannot be reached. From then on the hub logs an audit line per call on the API's
// Logger ("serve.audit", hub.Hub.SetAudit).
// Serve the result on a listener, and Shutdown it before closing the Host.
func (h *Host) API(ctx context.Context, opts *api.Options) (*api.Server, error) {
	var o api.Options
	if opts != nil {
		o = *opts
	}
	model, err := h.Model()
	var se *SettingsError
	switch {
	case err == nil:
	case errors.Is(err, ErrNoModel):
		o.NoModel = err.Error()
	case errors.As(err, &se):
		o.NoModel = "the model is not usable: " + err.Error()
	default:
		return nil, err
	}
	if o.NoModel != "" {
		h.log.Warn("chat turns are off: " + o.NoModel)
	}
	janitor, err := h.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	// Servers' sampling requests during a turn's calls go to the model for the
	// servers whose config allows it; MCP clients of the gateway get their own
	// clients'.
	h.ServerRequests(model, nil)
	gw, err := h.Gateway(nil)
	if err != nil {
		return nil, err
	}
	o.Catalog, o.Sessions = h.cat, janitor
	if o.Embeddings == nil {
		// GET /v1/search ranks as the model's tool_search does.
		if o.Embeddings, err = h.Embeddings(); err != nil {
			return nil, err
		}
	}
	if o.SignIn == nil {
		// POST /v1/servers/{name}/login: the sign-in through the API's own callback.
		o.SignIn = h.SignIn
		// A server that waits for a sign-in says so with the ways this service
		// offers, not only the command.
		h.signins.SetHow(func(name string) string {
			return fmt.Sprintf("an admin signs it in with the dashboard's Sign in button, or runs 'switchboard login %s' with the service's data directory", name)
		})
	}
	if o.Servers == nil {
		// POST, PATCH and DELETE /v1/servers: written to the config file (edit.go).
		o.Servers = h
	}
	if o.Identify == nil && h.cfg.Settings.Serve.Auth != nil {
		// The people of "serve": {"auth"}: the provider is asked at once, so that a
		// service that cannot check tokens does not start.
		v, err := h.Verifier(ctx, nil)
		if err != nil {
			return nil, err
		}
		o.Identify, o.Issuer = v.Identify, v.Issuer()
		o.DashboardSignIn = DashboardSignIn(v, h.cfg.Settings.Serve.Auth)
	}
	o.Gateway = gw.Handler(&gateway.HTTPOptions{MaxRequestBytes: o.MaxRequestBytes})
	if o.Version == "" {
		o.Version = h.opts.Version
	}
	if o.Logger == nil {
		o.Logger = h.log
	}
	if model != nil {
		a, err := h.Agent(ctx, nil)
		if err != nil {
			return nil, err
		}
		// The turns of sessions and of the compatible APIs: the servers' approve
		// policy, the API's default timeouts.
		o.Conversations = h.Conversations(a, nil)
		o.Model = h.ModelSettings().Name // what GET /v1/models lists
	}
	if o.RequestsPerMinute == 0 {
		o.RequestsPerMinute = h.cfg.Settings.Serve.Limits.RequestsPerMinute
	}
	if r := h.usageRecorder(janitor.Store()); r != nil && o.Usage == nil {
		o.Usage = r
	}
	if o.Access == nil {
		// Who sees which servers and tools: the config's profiles, followed.
		o.Access = h.access
	}
	if o.Profiles == nil {
		// The profiles an application key may name: the config's, read live.
		o.Profiles = h.access.Names
	}
	srv, err := api.New(h.hub, &o)
	if err != nil {
		return nil, err
	}
	// Every call through the hub, whoever makes it, from now on: "serve.audit".
	h.hub.SetAudit(o.Logger, h.cfg.Settings.Serve.Audit.Arguments)
	return srv, nil
}

// usageRecorder starts the recorder of every call's record (GET /v1/usage) in
// store, and has the hub give it each call; nil when the store keeps no usage or
// "serve": {"usage": {"retention": "0"}} turned it off. Host.Close stops it before
// it closes the store.
func (h *Host) usageRecorder(store session.Store) *usage.Recorder {
	us, ok := store.(session.UsageStore)
	keep := h.cfg.Settings.Serve.Usage.Retention
	if !ok || keep < 0 {
		return nil
	}
	r := usage.NewRecorder(us, &usage.Options{Retention: keep, Log: h.log})
	h.hub.SetUsage(r)
	h.onClose(func() {
		h.hub.SetUsage(nil)
		r.Close() //nolint:errcheck // it returns nil
	})
	return r
}

// DashboardSignIn is the dashboard's sign-in at v's provider as auth's "clientId"
// (api.Options.DashboardSignIn, beside Issuer v.Issuer()); nil without a client id:
// the page takes a pasted token.
func DashboardSignIn(v *identity.Verifier, auth *config.AuthSettings) *api.DashboardSignIn {
	if v == nil || auth == nil || auth.ClientID == "" {
		return nil
	}
	return &api.DashboardSignIn{ClientID: auth.ClientID, Audience: auth.Audience, TokenEndpoint: v.TokenEndpoint()}
}

// Verifier is the identity.Verifier of auth, or of the config's "serve": {"auth"}
// when auth is nil: it reads the provider's discovery document and keys now, and
// the error of a provider that cannot be reached names its issuer. (A change of
// "auth" in the config takes effect at the next start.)
func (h *Host) Verifier(ctx context.Context, auth *config.AuthSettings) (*identity.Verifier, error) {
	if auth == nil {
		auth = h.cfg.Settings.Serve.Auth
	}
	if auth == nil {
		return nil, errors.New(`no identity provider configured ("switchboard": {"serve": {"auth": {"issuer", "audience"}}})`)
	}
	claim, value := auth.AdminClaimParts()
	return identity.NewVerifier(ctx, &identity.OIDCOptions{
		Issuer: auth.Issuer, Audience: auth.Audience, Admins: auth.Admins,
		AdminClaim: strings.TrimSpace(claim), AdminValue: value, GroupsClaim: auth.GroupsClaim,
	})
}
