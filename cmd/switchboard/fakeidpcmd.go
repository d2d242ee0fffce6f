package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host/devtools"
)

// fakeIdPCommand serves a fake OpenID provider and OAuth authorization server on
// loopback (devtools.StartIdP with people), so that team mode and the sign-ins of MCP hosts
// can be tried on one machine. Hidden, as fake-llm: a development stand-in, not a
// feature; docs/deploy.md walks through it.
func (a *app) fakeIdPCommand() *cobra.Command {
	var (
		listen, audience string
		people           []string
		ttl              time.Duration
	)
	cmd := &cobra.Command{
		Use:    "fake-idp",
		Short:  "Serve a fake OpenID provider on loopback (for trying team mode on one machine)",
		Hidden: true,
		Long: `Fake-idp serves, on loopback only and until Ctrl-C, a development stand-in for an
identity provider: an OpenID Connect provider (discovery, keys) and an OAuth 2.1
authorization server (authorization code with PKCE, dynamic client registration)
whose tokens are JWTs for --audience. Whoever reaches it may sign in as any of its
people: its sign-in page has a button each, and GET /people/NAME/token is a token of
theirs (for curl and $SWITCHBOARD_TOKEN). Never use it for anything real.

--person NAME[:GROUP,GROUP...] names a person and their "groups" claim (repeat it;
default alice and bob:admins): serve's "adminClaim": "groups=admins" makes bob an
admin. The keys are made at each start: tokens of an earlier run are refused.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := &devtools.IdPOptions{Audience: audience, TokenTTL: ttl, Listen: listen}
			for _, p := range people {
				name, groups, _ := strings.Cut(p, ":")
				if name == "" || strings.ContainsAny(name, "/?#% ") {
					return commandLineError("--person %q: want NAME or NAME:GROUP,GROUP (a name without /, ?, #, %% or spaces)", p)
				}
				person := devtools.IdPPerson{Name: name}
				if groups != "" {
					person.Groups = strings.Split(groups, ",")
				}
				opts.People = append(opts.People, person)
			}
			idp, err := devtools.StartIdP(opts)
			if err != nil {
				return usageError("--listen %s: %v", listen, err)
			}
			defer idp.Close()
			a.printFakeIdP(idp, opts)
			<-cmd.Context().Done()
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:8950", "loopback address to listen on")
	f.StringVar(&audience, "audience", "switchboard", `the "aud" of its tokens (serve's --oidc-audience)`)
	f.StringArrayVar(&people, "person", []string{"alice", "bob:admins"}, "a person who may sign in, NAME or NAME:GROUP,GROUP (repeat it)")
	f.DurationVar(&ttl, "token-ttl", time.Hour, "the tokens' lifetime")
	return cmd
}

// printFakeIdP says where the provider is, who may sign in, how to get a token of
// theirs and how to point serve at it.
func (a *app) printFakeIdP(idp *devtools.IdP, opts *devtools.IdPOptions) {
	w := a.stdout
	fmt.Fprintf(w, "fake OpenID provider at %s, tokens for the audience %q\n", idp.Issuer, opts.Audience)
	fmt.Fprintln(w, "a development stand-in: anyone who reaches it signs in as anyone below; never use it for anything real")
	fmt.Fprintln(w, "people (a token: curl the URL):")
	for _, p := range opts.People {
		groups := ""
		if len(p.Groups) > 0 {
			groups = " (groups: " + strings.Join(p.Groups, ", ") + ")"
		}
		fmt.Fprintf(w, "  %s%s  %s/people/%s/token\n", p.Name, groups, idp.Issuer, p.Name)
	}
	fmt.Fprintln(w, "serve a team with it:")
	fmt.Fprintf(w, "  switchboard serve --oidc-issuer %s --oidc-audience %s\n", idp.Issuer, opts.Audience)
	fmt.Fprintln(w, `and, for a group's people to be admins, in the config's "switchboard" block:`)
	fmt.Fprintf(w, `  "serve": {"auth": {"issuer": %q, "audience": %q, "adminClaim": "groups=admins"}}`+"\n", idp.Issuer, opts.Audience)
}
