// Package devtools is what the switchboard command's hidden commands serve, so that
// it can be tried on one machine with nothing else installed: the built-in demo MCP
// servers (RunDemo, which the built-in demo config, host.DemoConfig, runs as
// `switchboard demo-server NAME`), a fake model that speaks the OpenAI or the
// Anthropic wire format (NewFakeModel), and a fake OpenID provider for team mode
// (StartIdP). None of it is for anything real; none of it links the testing
// package, as a binary that ships it must not.
//
//	m, err := devtools.NewFakeModel("openai", "127.0.0.1:0")
//	if err != nil {
//		return err
//	}
//	defer m.Close()
//	fmt.Println("point --base-url at", m.URL)
package devtools

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/fakeidp"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// RunDemo serves the built-in demo server called name (one of host.DemoServers)
// over stdin and stdout until its client closes stdin or ctx ends, both a clean
// stop (demo.Run). notesFile is the notes server's notebook; "" is
// $SWITCHBOARD_NOTES_FILE, else the user's config directory.
func RunDemo(ctx context.Context, name, notesFile string) error {
	return demo.Run(ctx, name, &demo.Options{NotesFile: notesFile})
}

// FakeModel is a fake model server on loopback (fakellm.Server): URL is the base
// URL a client is given; Close stops it and waits for its requests.
type FakeModel = fakellm.Server

// NewFakeModel serves a deterministic fake model on addr that speaks provider's
// wire format, "openai" (Chat Completions) or "anthropic" (Messages), with the
// rules of fakellm.Rules: "call TOOL {json}" calls TOOL, the tools' results are
// answered with their texts, anything else echoed. Another provider is an
// *UnknownProviderError, before anything listens.
func NewFakeModel(provider, addr string) (*FakeModel, error) {
	switch provider {
	case "openai":
		return fakellm.NewOpenAI(addr, fakellm.Rules())
	case "anthropic":
		return fakellm.NewAnthropic(addr, fakellm.Rules())
	}
	return nil, &UnknownProviderError{Provider: provider}
}

// UnknownProviderError is a wire format NewFakeModel does not speak.
type UnknownProviderError struct{ Provider string }

func (e *UnknownProviderError) Error() string {
	return fmt.Sprintf("unknown provider %q: want openai or anthropic", e.Provider)
}

// IdP is a running fake OpenID provider and OAuth authorization server at Issuer
// (fakeidp.Provider); IdPOptions shape it (fakeidp.Options: the audience, the
// people who may sign in, the tokens' lifetime, the loopback address), and
// IdPPerson is one of its people (fakeidp.Person: a name and groups).
type (
	IdP        = fakeidp.Provider
	IdPOptions = fakeidp.Options
	IdPPerson  = fakeidp.Person
)

// StartIdP starts a fake OpenID provider on loopback (fakeidp.Start): anyone who
// reaches it signs in as any of its people. Close stops it.
func StartIdP(opts *IdPOptions) (*IdP, error) { return fakeidp.Start(opts) }
