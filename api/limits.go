package api

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/httpguard"
)

// maxLimitedSubjects bounds the buckets a limiter keeps. Past it the idle ones go,
// then the least recently used: that person starts again with a full bucket.
const maxLimitedSubjects = 10_000

// limiter is Options.RequestsPerMinute: a token bucket per subject, which holds a
// minute's requests and refills at the same pace. A bucket idle for a minute is
// full again, the same as a new one, so it is dropped (at the next new subject
// after a minute, or when the map is full): the map holds the people of the last
// minute, at most maxLimitedSubjects.
type limiter struct {
	perMinute int
	refill    time.Duration // an empty bucket's time to fill up

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	last time.Time // its last request
}

// newLimiter is nil for perMinute ≤ 0: no limit.
func newLimiter(perMinute int) *limiter {
	if perMinute <= 0 {
		return nil
	}
	return &limiter{perMinute: perMinute, refill: time.Minute, buckets: map[string]*bucket{}}
}

// take takes a request from subject's bucket at now; when it is empty, it takes
// nothing and returns how long until it holds one.
func (l *limiter) take(subject string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[subject]
	if b == nil {
		l.makeRoom(now)
		b = &bucket{lim: rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)}
		l.buckets[subject] = b
	}
	b.last = now
	res := b.lim.ReserveN(now, 1) // ok: the burst is at least 1
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d
	}
	return 0
}

// makeRoom drops the buckets idle long enough to be full, every refill or when the
// map is full; then, if it is still full, the least recently used one. l.mu is held.
func (l *limiter) makeRoom(now time.Time) {
	if len(l.buckets) < maxLimitedSubjects && now.Sub(l.lastSweep) < l.refill {
		return
	}
	l.lastSweep = now
	oldest, oldestAt := "", now
	for s, b := range l.buckets {
		if now.Sub(b.last) >= l.refill {
			delete(l.buckets, s)
		} else if b.last.Before(oldestAt) {
			oldest, oldestAt = s, b.last
		}
	}
	if len(l.buckets) >= maxLimitedSubjects {
		delete(l.buckets, oldest)
	}
}

// limit answers 429 with Retry-After (whole seconds, rounded up) to a request past
// its person's Options.RequestsPerMinute, in the error form of its route. It runs
// after the token's check, on every route but the public ones. The bucket is the
// person's subject's; requests with none share one: those of a service without
// identities (everyone is one person there) and the static token's admin.
func (s *Server) limit(l *limiter, next http.Handler) http.Handler {
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := l.take(identity.Owner(r.Context()), time.Now())
		if d <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		secs := int(math.Ceil(d.Seconds()))
		httpguard.Unread(w, r)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeError(w, r, http.StatusTooManyRequests, apiwire.CodeRateLimited,
			fmt.Sprintf("more than %d requests a minute: try again in %d s", l.perMinute, secs))
	})
}
