package signin

import (
	"fmt"
	"strings"
)

// NeedsSignInError is a server's request for a sign-in that only a person can make:
// it has no token Switchboard could send or refresh, or it asks for more access
// (a scope the token lacks: "step-up"). The handler returns it at once instead of
// waiting for somebody who may not be there; [Handler.SignIn] makes the sign-in
// (switchboard login, or a command at a terminal), after which the server connects.
type NeedsSignInError struct {
	// Server is the server's name in the config.
	Server string
	// StepUp: the server took the sign-in but wants more access: Scopes.
	StepUp bool
	// Scopes are what the server's challenge asks for ("" when it names none).
	Scopes []string
	// Reason says why the last sign-in no longer serves, when it did once ("the
	// authorization server refused the refresh token").
	Reason string
	// How says how a person makes the sign-in where the program runs (see
	// Handlers.SetHow); "" says to run 'switchboard login NAME' (for Person: to use
	// the Sign in button of the dashboard: the sign-in completes only in the
	// browser that asked for it).
	How string
	// Person: the sign-in is the caller's own (a "perUser" server), which they make
	// for themselves, as themselves, through the service (the command line signs
	// the service in, not them).
	Person bool
}

func (e *NeedsSignInError) Error() string {
	how := e.How
	switch {
	case how == "" && e.Person:
		how = "use the Sign in button of the service's dashboard, in your browser"
	case how == "":
		how = fmt.Sprintf("run 'switchboard login %s'", e.Server)
	}
	if e.StepUp {
		return fmt.Sprintf("server %s asks for more access (scope %q): sign in again: %s",
			e.Server, strings.Join(e.Scopes, " "), how)
	}
	msg := fmt.Sprintf("server %s needs a sign-in: %s", e.Server, how)
	if e.Person {
		msg = fmt.Sprintf("server %s needs your sign-in: %s", e.Server, how)
	}
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	return msg
}

// NeedsSignIn marks the error for packages that must not import signin (upstream
// tells a server that needs a sign-in from one that failed by it).
func (e *NeedsSignInError) NeedsSignIn() bool { return true }
