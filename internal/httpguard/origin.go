package httpguard

import "context"

type originKey struct{}

// WithOriginChecked marks a request's context as checked for cross-origin requests
// by the server that mounts a handler (package api mounts the gateway): the handler
// leaves the check to it, so that the origins that server trusts (its --cors) hold
// for the handler too, instead of a second check that trusts none of them.
func WithOriginChecked(ctx context.Context) context.Context {
	return context.WithValue(ctx, originKey{}, true)
}

// OriginChecked reports whether WithOriginChecked marked ctx.
func OriginChecked(ctx context.Context) bool {
	ok, _ := ctx.Value(originKey{}).(bool)
	return ok
}
