package api

import (
	"strconv"
	"testing"
	"time"
)

// TestLimiterBuckets: a bucket holds a minute's requests and refills at that pace;
// subjects have buckets of their own; a bucket idle for a minute goes (it would be
// full again), and the map never holds more than maxLimitedSubjects.
func TestLimiterBuckets(t *testing.T) {
	t.Parallel()
	if newLimiter(0) != nil {
		t.Fatal("a limit of 0 limits")
	}
	l := newLimiter(2)
	now := time.Unix(1_000_000, 0)
	for i := range 2 {
		if d := l.take("alice", now); d != 0 {
			t.Fatalf("request %d: wait %v", i, d)
		}
	}
	if d := l.take("alice", now); d != 30*time.Second {
		t.Errorf("past the bound: wait %v, want 30s (2 a minute)", d)
	}
	if d := l.take("bob", now); d != 0 {
		t.Errorf("bob: wait %v", d)
	}
	if d := l.take("alice", now.Add(30*time.Second)); d != 0 {
		t.Errorf("after 30 s: wait %v", d)
	}

	later := now.Add(2 * time.Minute)
	l.take("carol", later) // a new subject after a minute: the idle go
	if _, ok := l.buckets["bob"]; ok || len(l.buckets) != 1 {
		t.Errorf("after two idle minutes %d buckets, bob's kept: %v", len(l.buckets), ok)
	}

	for i := range maxLimitedSubjects + 10 {
		l.take("p"+strconv.Itoa(i), later.Add(time.Duration(i)*time.Millisecond))
	}
	if n := len(l.buckets); n > maxLimitedSubjects {
		t.Errorf("%d buckets, want at most %d", n, maxLimitedSubjects)
	}
	if _, ok := l.buckets["carol"]; ok {
		t.Errorf("the least recently used bucket kept when the map was full")
	}
}
