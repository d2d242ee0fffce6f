package main

import (
	"errors"
	"fmt"
	"strings"
)

// Exit codes that scripts can rely on.
const (
	exitOK     = 0
	exitFailed = 1 // the operation ran and failed
	exitUsage  = 2 // bad flags, arguments or configuration
)

// exitError carries an exit code with the error that caused it. A nil err with a
// non-zero code means the command already printed what went wrong.
type exitError struct {
	code int
	err  error
	// hint: the command line itself was wrong, so point the user at --help.
	hint bool
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// commandLineError is a usage error in the shape of the command line (flags, number of
// arguments); the message is followed by a pointer to --help.
func commandLineError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...), hint: true}
}

// silentExit ends the command with code after it has printed its own report.
func silentExit(code int) error { return &exitError{code: code} }

// exitCode maps an error from the command tree to the process exit code.
func exitCode(err error) (int, string) {
	if err == nil {
		return exitOK, ""
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err == nil {
			return ee.code, ""
		}
		return ee.code, ee.err.Error()
	}
	msg := err.Error()
	// Cobra's own argument and command errors are usage errors.
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most"} {
		if strings.HasPrefix(msg, p) {
			return exitUsage, msg
		}
	}
	return exitFailed, msg
}
