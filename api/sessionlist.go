package api

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
)

// GET /v1/sessions lists the person's sessions, most recently active first, and
// takes, all optional:
//
//   - q: words that each appear (in any case) in the session's id, title, a metadata
//     value or, for an admin (and without identities), its owner;
//   - limit: how many to answer, 1 to maxSessionPage; without it every session (as
//     before paging was), or sessionPage with a cursor;
//   - cursor: where the page starts, the "next" of the page before.
//
// The answer's "total" counts the sessions that match q (the person's only), and
// "next", absent on the last page, is the next page's cursor. A cursor names the last
// session of its page by its place in the order (its lastActive and id), so that a
// session that becomes active meanwhile (and moves to the top) shifts nothing: the
// next page starts after that place, whatever was added or deleted.

// Page sizes of GET /v1/sessions.
const (
	sessionPage    = 50
	maxSessionPage = 200
)

// sessionQuery is a GET /v1/sessions request's parameters.
type sessionQuery struct {
	words  []string // q's words, in lower case
	limit  int      // 0: every session
	after  *session.Summary
	owners bool // q matches the owner too
}

// parseSessionQuery reads q, limit and cursor, or says which is wrong.
func parseSessionQuery(ctx context.Context, v url.Values) (sessionQuery, *apiError) {
	var sq sessionQuery
	sq.words = strings.Fields(strings.ToLower(v.Get("q")))
	sq.owners = identity.Admin(ctx)
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxSessionPage {
			return sq, errorf(400, apiwire.CodeBadRequest, "limit=%s: want a whole number from 1 to %d (or no limit, for every session)", l, maxSessionPage)
		}
		sq.limit = n
	}
	if c := v.Get("cursor"); c != "" {
		after, ok := decodeCursor(c)
		if !ok {
			return sq, errorf(400, apiwire.CodeBadRequest, `cursor=%s: not a cursor of this API: pass the "next" of the page before as it came, or no cursor for the first page`, c)
		}
		sq.after = &after
		if sq.limit == 0 {
			sq.limit = sessionPage
		}
	}
	return sq, nil
}

// page is the query's page of list (in session.CompareSummaries's order): the
// sessions after the cursor that match, at most limit of them, how many match in all,
// and the next page's cursor ("" after the last page).
func (sq sessionQuery) page(list []session.Summary) (page []session.Summary, total int, next string) {
	list = slices.DeleteFunc(list, func(s session.Summary) bool { return !sq.matches(&s) })
	total = len(list)
	if sq.after != nil {
		i, _ := slices.BinarySearchFunc(list, *sq.after, session.CompareSummaries)
		for i < len(list) && session.CompareSummaries(list[i], *sq.after) <= 0 {
			i++
		}
		list = list[i:]
	}
	if sq.limit > 0 && len(list) > sq.limit {
		list = list[:sq.limit]
		next = encodeCursor(list[len(list)-1])
	}
	return list, total, next
}

// matches reports whether each of the query's words appears in s.
func (sq sessionQuery) matches(s *session.Summary) bool {
	for _, w := range sq.words {
		if !sq.has(s, w) {
			return false
		}
	}
	return true
}

func (sq sessionQuery) has(s *session.Summary, word string) bool {
	in := func(field string) bool { return strings.Contains(strings.ToLower(field), word) }
	if in(s.ID) || in(s.Title) || (sq.owners && in(s.Owner)) {
		return true
	}
	for _, v := range s.Metadata {
		if in(v) {
			return true
		}
	}
	return false
}

// encodeCursor is the cursor of the page after s: its place in the order.
func encodeCursor(s session.Summary) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d:%s", s.LastActive.UnixNano(), s.ID))
}

// decodeCursor is the place a cursor names, as a summary with its LastActive and ID.
func decodeCursor(c string) (session.Summary, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return session.Summary{}, false
	}
	ns, id, ok := strings.Cut(string(b), ":")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return session.Summary{}, false
	}
	return session.Summary{ID: id, LastActive: time.Unix(0, n)}, true
}
