package api_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestLogFollowersBounded: follow streams of a server's log are bounded, 8 a person
// and 32 a server: past either, 429 too_many_followers saying which and to close
// one; a stream that ends gives its place back. Before, a probe held 1,000 (2,000
// goroutines, every other call 20 times slower).
func TestLogFollowersBounded(t *testing.T) {
	t.Parallel()
	admins := func(r *http.Request) (identity.Person, error) {
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer admin-"); ok {
			return identity.Person{Subject: "admin-" + strings.TrimSuffix(tok, "-token"), Admin: true}, nil
		}
		return identity.Person{}, errors.New("not an admin's token")
	}
	clock2 := clockServer(t)
	clock2.Name = "clock2"
	e := start(t, setup{servers: []config.Server{clockServer(t), clock2}, opts: api.Options{Identify: admins}})

	// follow opens GET /v1/servers/{server}/log?follow=1 as admin-{who}: the open
	// stream (also kept in opened), or nil and the error's body.
	var opened []*http.Response
	follow := func(who, server string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, e.url+"/v1/servers/"+server+"/log?follow=1", nil)
		req.Header.Set("Authorization", "Bearer admin-"+who+"-token")
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s's log: %v", server, err)
		}
		if res.StatusCode == http.StatusOK {
			t.Cleanup(func() { res.Body.Close() })
			opened = append(opened, res)
			return res, ""
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), `"code": "too_many_followers"`) {
			t.Fatalf("GET %s's log as admin-%s: %d %s, want 200 or 429 too_many_followers", server, who, res.StatusCode, b)
		}
		return nil, string(b)
	}
	mustFollow := func(who, server string) *http.Response {
		t.Helper()
		res, body := follow(who, server)
		if res == nil {
			t.Fatalf("admin-%s on %s refused: %s", who, server, body)
		}
		return res
	}

	// A person: 8 at once, across the servers.
	var held []*http.Response
	for i := range 8 {
		held = append(held, mustFollow("0", []string{"clock", "clock2"}[i%2]))
	}
	if _, body := follow("0", "clock2"); !strings.Contains(body, "too many log followers of yours") || !strings.Contains(body, "at most 8 at once") || !strings.Contains(body, "close one") {
		t.Errorf("admin-0's 9th: %s", body)
	}

	// A server: 32 at once (4 of admin-0's, and 28 of four others').
	for i := range 28 {
		held = append(held, mustFollow(string(rune('1'+i/7)), "clock"))
	}
	if _, body := follow("5", "clock"); !strings.Contains(body, `too many log followers for server \"clock\": at most 32 at once; close one`) {
		t.Errorf("clock's 33rd: %s", body)
	}
	mustFollow("5", "clock2").Body.Close() // the other server takes more

	// One that ends lets another in.
	held[len(held)-1].Body.Close()
	testenv.WaitFor(t, "a place on clock once a follower left", 10*time.Second, func() bool {
		res, _ := follow("5", "clock")
		return res != nil
	})
	if _, body := follow("6", "clock"); body == "" {
		t.Error("clock took a 33rd follower")
	}

	// Their clients gone, the streams end (goleak checks their goroutines at the end).
	for _, r := range opened {
		r.Body.Close()
	}
	testenv.WaitFor(t, "every follow stream ended", 10*time.Second, func() bool { return api.LogStreams(e.srv) == 0 })
}
