package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// signalled is the cause of the command's context's end when a signal ended it, so
// that a command cut short can say so and exit as a shell expects of a process a
// signal stopped: 128+N, 130 for Ctrl-C (SIGINT), 143 for SIGTERM.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return s.sig.String() + " signal received" }

// Is keeps ctx.Err() what code checks for: context.Canceled.
func (s signalled) Is(target error) bool { return target == context.Canceled }

// notifyContext is signal.NotifyContext with the signal as the context's cause
// ([signalled]): os/signal's own cause is an unexported type that only its message
// tells apart. The signals stay caught until stop, so a second Ctrl-C does not kill
// the process while it stops its servers.
func notifyContext(parent context.Context, sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(signalled{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
}

// signalExitCode is 128+N when a signal N ended ctx, and false otherwise (ctx is live,
// or ended for another reason).
func signalExitCode(ctx context.Context) (int, bool) {
	var s signalled
	if !errors.As(context.Cause(ctx), &s) {
		return 0, false
	}
	if n, ok := s.sig.(syscall.Signal); ok {
		return 128 + int(n), true
	}
	return 128 + int(syscall.SIGINT), true
}
