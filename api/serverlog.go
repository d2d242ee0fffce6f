package api

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/identity"
)

// GET /v1/servers/{name}/log is a server's log (hub.ServerLog, kept by the hub across
// restarts): its stderr lines, its state changes, its failed connection attempts and
// the MCP log messages it sent, each with its time and sequence number, masked of the
// config's secrets. ?since=SEQ keeps the entries after that sequence number (an
// entry's "seq", or a previous answer's "last"), ?limit=N the newest N of them.
//
// The answer is {"server", "entries": [...], "last", "missed"}: last is the newest
// entry's sequence number (since=last asks for what comes next), missed counts the
// entries after since that are not in the answer (the ring dropped them, or limit
// left them out).
//
// With ?follow=1 it is a text/event-stream instead: the same backlog, then each new
// entry as it comes, each as an event "log" with the entry as its data; when the
// stream fell behind by more than the log keeps, an event "missed" ({"count": N})
// says how many entries it lost. An idle stream gets a comment as /v1/events does;
// it ends when the client leaves, at Shutdown, and (with an event "end") when the
// server leaves the service.
//
// A "perUser" server's log is the service's own connection's: the persons' own
// connections keep none. With identities on, a log is for admins (it may quote what
// anyone's calls sent): others get 403.
//
// Follow streams are bounded, by server and by person (logFollowers): one more is
// 429 too_many_followers, until one of them ends.

// Bounds of the follow streams open at once. Each holds a connection, a goroutine
// and a ticker for as long as its client keeps it: a probe that held 1,000 made
// every other call 20 times slower. A dashboard follows one log per open view.
const (
	maxFollowersPerServer = 32
	maxFollowersPerPerson = 8
)

// logFollowers counts the follow streams open, by server and by person: a
// subject, or "" shared by the static token's admin and every caller of a service
// without identities (one person there, as limits.go counts them). The zero value
// is ready to use.
type logFollowers struct {
	mu       sync.Mutex
	byServer map[string]int
	byPerson map[string]int
}

// enter takes a place for a follow stream of server's log by person, or answers
// why there is none; leave, called once, gives the place back.
func (f *logFollowers) enter(server, person string) (leave func(), e *apiError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.byServer[server] >= maxFollowersPerServer:
		return nil, errorf(http.StatusTooManyRequests, apiwire.CodeTooManyFollowers,
			"too many log followers for server %q: at most %d at once; close one", server, maxFollowersPerServer)
	case f.byPerson[person] >= maxFollowersPerPerson:
		return nil, errorf(http.StatusTooManyRequests, apiwire.CodeTooManyFollowers,
			"too many log followers of yours (server %q's included): at most %d at once, across the servers; close one", server, maxFollowersPerPerson)
	}
	if f.byServer == nil {
		f.byServer, f.byPerson = map[string]int{}, map[string]int{}
	}
	f.byServer[server]++
	f.byPerson[person]++
	return func() { // deferred once by the handler
		f.mu.Lock()
		defer f.mu.Unlock()
		release(f.byServer, server)
		release(f.byPerson, person)
	}, nil
}

// release gives back one of k's places in m.
func release(m map[string]int, k string) {
	if m[k]--; m[k] <= 0 {
		delete(m, k)
	}
}

// logQuery is what GET /v1/servers/{name}/log asks for.
type logQuery struct {
	since  uint64
	limit  int
	follow bool
}

// parseLogQuery reads since, limit and follow; a bad one is a 400 naming it.
func parseLogQuery(r *http.Request) (logQuery, *apiError) {
	var q logQuery
	v := r.URL.Query()
	if s := v.Get("since"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return q, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "since=%s: want the sequence number of an entry (a whole number, as an entry's \"seq\" or an answer's \"last\")", s)
		}
		q.since = n
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return q, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "limit=%s: want a whole number of entries, 1 or more (a log keeps %d)", s, hub.DefaultLogEntries)
		}
		q.limit = n
	}
	var e *apiError
	q.follow, e = boolParam(v.Get("follow"), "follow")
	return q, e
}

// getServerLog serves GET /v1/servers/{name}/log (see above).
func (s *Server) getServerLog(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	l, ok := s.hub.Log(name)
	if !ok {
		_, e := s.findServer(r.Context(), name)
		writeAPIError(w, r, e)
		return
	}
	q, e := parseLogQuery(r)
	if e != nil {
		writeAPIError(w, r, e)
		return
	}
	if q.follow {
		leave, e := s.live.followers.enter(name, identity.Owner(r.Context()))
		if e != nil {
			writeAPIError(w, r, e)
			return
		}
		defer leave()
		s.followLog(w, r, name, l, q)
		return
	}
	last := l.Last()
	entries, missed := l.Entries(q.since, q.limit)
	if len(entries) > 0 {
		last = entries[len(entries)-1].Seq
	}
	writeJSON(w, http.StatusOK, apiwire.ServerLog{Server: name, Entries: wireEntries(entries), Last: last, Missed: missed})
}

// followLog streams the log l of the server name: the backlog q asks for, then every
// new entry, until the client leaves, the API shuts down or the server leaves.
func (s *Server) followLog(w http.ResponseWriter, r *http.Request, name string, l *hub.ServerLog, q logQuery) {
	sw := httpx.NewSSEWriter(w)
	// A since past the log's end (a service that started again numbers from 1) is
	// its end: what comes next is new.
	after := min(q.since, l.Last())
	changed := l.Changed()
	send := func(limit int) error {
		entries, missed := l.Entries(after, limit)
		if missed > 0 {
			if err := sw.Send("missed", map[string]uint64{"count": missed}); err != nil {
				return err
			}
		}
		for _, e := range entries {
			if err := sw.Send("log", wireEntry(e)); err != nil {
				return err
			}
			after = e.Seq
		}
		sw.Start() // an empty backlog starts the stream too
		return sw.Flush()
	}
	if send(q.limit) != nil {
		return
	}
	tick := time.NewTicker(s.live.heartbeatEvery())
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			if cur, ok := s.hub.Log(name); !ok || cur != l {
				// The hub lets go of the log once the server stopped: its last
				// entries, "closed" among them, go before the end.
				if send(0) != nil {
					return
				}
				_ = sw.Send("end", map[string]string{"reason": "the server " + strconv.Quote(name) + " was removed"})
				_ = sw.Flush()
				return
			}
			if sw.KeepAlive() != nil {
				return
			}
		case <-changed:
			changed = l.Changed()
			if send(0) != nil {
				return
			}
		}
	}
}

// wireEntries are a log's entries as the API writes them: [], never null.
func wireEntries(entries []hub.LogEntry) []apiwire.LogEntry {
	out := make([]apiwire.LogEntry, len(entries))
	for i, e := range entries {
		out[i] = wireEntry(e)
	}
	return out
}

func wireEntry(e hub.LogEntry) apiwire.LogEntry {
	return apiwire.LogEntry{Seq: e.Seq, Time: e.Time, Kind: string(e.Kind), Text: e.Text,
		State: apiwire.State(e.State), From: apiwire.State(e.From), Level: e.Level}
}
