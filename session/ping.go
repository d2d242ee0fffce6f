package session

import "context"

// Pinger is a Store that can tell whether it is reachable now: a store on another
// host (PostgreSQL) can be away while the process runs, and a readiness probe asks
// it so that a load balancer sends no turn to a replica that cannot keep it. A store
// without Ping (memory) is always reachable.
type Pinger interface {
	// Ping checks the store with one cheap round trip: nil when it answers,
	// ErrClosed after Close. The error names the store (never a password).
	Ping(ctx context.Context) error
}
