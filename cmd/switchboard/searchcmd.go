package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/host"
)

func (a *app) searchCommand() *cobra.Command {
	var (
		regex  bool
		limit  int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:         "search [QUERY]",
		Annotations: map[string]string{remoteKey: "yes"},
		Short:       "Start every server, search the merged tool catalog, and stop them",
		Long: `Search starts the servers itself (it does not ask a running switchboard,
unless --server or $SWITCHBOARD_SERVER names one: see below), waits for
each to be ready, failed or past its init timeout, and ranks the catalog against QUERY,
a task in words ("what time is it in Tokyo"), as the tool_search tool of deferred mode
does. With --regex, QUERY is a regular expression (Go RE2 syntax, case-insensitive)
matched against tool names, descriptions and parameters, as tool_search_regex does.
It says on stderr which servers are not ready, as their tools are missing.

Each result is a line: rank, exposed name (as 'switchboard tools' prints it), server,
score (higher is better; comparable only within one search) and the description.
--json prints {"query", "results": [{"name", "server", "score"}]}.

With no QUERY, it reads one query per line from stdin (empty lines are skipped) and
writes one JSON line per query, in order: {"query", "results": [...]}, or
{"query", "error": "..."} for a query it cannot run (a bad pattern), and goes on.
Input with no query at all is a usage error.

When the config has "switchboard": {"search": {"embeddings": {...}}}, word searches
combine the ranking with the similarity of embeddings from that OpenAI-compatible
endpoint (no flag needed); when the endpoint fails, the lexical ranking answers alone.

With --server URL (or $SWITCHBOARD_SERVER; its token from $SWITCHBOARD_TOKEN) it
searches the catalog of that running 'switchboard serve' instead (GET /v1/search) and
starts nothing; the service ranks words lexically, without the embeddings.

Exit codes: 0 a tool matched (with stdin: some query matched), 1 nothing matched, or a
required server did not start, 2 usage or configuration error (a bad pattern or --limit).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if regex && len(args) > 1 {
				return commandLineError("%s --regex: want one PATTERN (quote it), got %d arguments", cmd.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("limit") && (limit < 1 || limit > host.MaxSearchLimit) {
				return commandLineError("--limit %d is out of range: give 1 to %d (default %d, or %d with --regex)",
					limit, host.MaxSearchLimit, host.DefaultSearchLimit, host.DefaultRegexLimit)
			}
			q := searchQuery{regex: regex, limit: limit}
			if len(args) == 0 {
				if stdinIsTerminal() {
					fmt.Fprintln(a.stderr, "switchboard search: no QUERY given; reading one query per line (end with Ctrl-D)")
				}
				if a.remote != nil {
					return a.remoteSearch(cmd.Context(), q, cmd.InOrStdin(), false)
				}
				return a.withSearcher(cmd.Context(), func(s *searcher) error {
					return s.stdin(cmd.Context(), cmd.InOrStdin(), a.stdout, q)
				})
			}
			// Several words are one query: `switchboard search what time is it`.
			q.text = strings.Join(args, " ")
			// A bad query is a usage error before any server starts.
			if err := q.check(); err != nil {
				return usageError("%v", err)
			}
			if a.remote != nil {
				return a.remoteSearch(cmd.Context(), q, nil, asJSON)
			}
			return a.withSearcher(cmd.Context(), func(s *searcher) error {
				found, err := s.find(cmd.Context(), q)
				if err != nil {
					return usageError("%v", err)
				}
				if asJSON {
					if err := writeJSON(a.stdout, searchLine{Query: q.text, Results: resultsJSON(found)}); err != nil {
						return err
					}
				} else {
					s.writeText(a.stdout, q, found)
				}
				if len(found) == 0 {
					return silentExit(exitFailed)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&regex, "regex", false, "QUERY is a regular expression (case-insensitive, RE2 syntax) matched against names, descriptions and parameters")
	cmd.Flags().IntVar(&limit, "limit", 0, fmt.Sprintf("at most this many results, 1 to %d (default %d, or %d with --regex)", host.MaxSearchLimit, host.DefaultSearchLimit, host.DefaultRegexLimit))
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"query", "results": [{"name", "server", "score"}]} (stdin mode always prints JSON lines)`)
	a.addDataDir(cmd)
	markLocalOnly(cmd, "regex", "limit", "json", "data-dir")
	return cmd
}

// searchQuery is one search as the command line or a stdin line asks it.
type searchQuery struct {
	text  string
	regex bool
	limit int // 0: the tool's default
}

// check finds what makes q fail before it is run, worded for the command line (the
// search package's own errors are worded for a model).
func (q searchQuery) check() error {
	if strings.TrimSpace(q.text) == "" {
		if q.regex {
			return fmt.Errorf("the pattern is empty")
		}
		return fmt.Errorf("the query is empty: describe the tool you need in a few words")
	}
	if !q.regex {
		return nil
	}
	if n := utf8.RuneCountInString(q.text); n > host.MaxPatternLen {
		return fmt.Errorf("the pattern is %d characters long; the limit is %d", n, host.MaxPatternLen)
	}
	if _, err := regexp.Compile(q.text); err != nil {
		return fmt.Errorf("pattern %q is not a valid regular expression (Go RE2 syntax): %v", q.text, err)
	}
	return nil
}

// searcher answers queries over the catalog of a started host.
type searcher struct{ *host.Searcher }

// withSearcher starts the servers as 'tools' does, says on stderr which ones are not
// ready (their tools are missing from the results), and runs fn over the catalog.
func (a *app) withSearcher(ctx context.Context, fn func(*searcher) error) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	hs := host.New(cfg, a.hostOptions(nil))
	defer hs.Close()
	if err := hs.SignInError(); err != nil {
		return settingsError(err, "", false)
	}
	emb, err := hs.Embeddings()
	if err != nil {
		return settingsError(err, "", false)
	}
	if err := hs.Launch(); err != nil {
		return err
	}
	if err := a.settle(ctx, hs); err != nil {
		return err
	}
	s := &searcher{hs.NewSearcher(emb)}
	if sts := statusesOf(hs.Servers()); len(notReady(sts)) > 0 {
		fmt.Fprintf(a.stderr, "switchboard search: searching %s\n", toolsSummary(s.Len(), sts))
	}
	return fn(s)
}

// find runs q: checked, then ranked (with the embeddings when configured and q is in
// words) or matched.
func (s *searcher) find(ctx context.Context, q searchQuery) ([]apiwire.SearchResult, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	if q.regex {
		return s.SearchRegex(q.text, q.limit)
	}
	return s.Search(ctx, q.text, q.limit)
}

// searchLine is one query's answer in JSON.
type searchLine struct {
	Query   string      `json:"query"`
	Results []foundJSON `json:"results"`
}

// searchError is, in stdin mode, the line of a query that could not run.
type searchError struct {
	Query string `json:"query"`
	Error string `json:"error"`
}

// foundJSON is one result: the exposed name, as 'tools --json' prints it.
type foundJSON struct {
	Name   string  `json:"name"`
	Server string  `json:"server"`
	Score  float64 `json:"score"`
}

func resultsJSON(found []apiwire.SearchResult) []foundJSON {
	out := make([]foundJSON, len(found))
	for i, r := range found {
		out[i] = foundJSON{r.Name, r.Server, r.Score}
	}
	return out
}

// stdin answers one query per line of r with one JSON line each on w, in order. A
// query that cannot run gets its error on its line and the run goes on; the exit
// code is 1 when no query matched anything.
func (s *searcher) stdin(ctx context.Context, r io.Reader, w io.Writer, q searchQuery) error {
	return answerQueries(ctx, r, w, q, s.find, func(error) bool { return true })
}

// answerQueries runs find for each query on a line of r and writes one JSON line
// each on w, in order: the results, or the error of a query that cannot run (own
// says which errors are the query's own; any other ends the run). The exit code is 1
// when no query matched anything.
func answerQueries(ctx context.Context, r io.Reader, w io.Writer, q searchQuery,
	find func(context.Context, searchQuery) ([]apiwire.SearchResult, error), own func(error) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	enc := json.NewEncoder(w)
	matched, queries := false, 0
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		queries++
		if ctx.Err() != nil {
			return ctx.Err()
		}
		q.text = text
		var line any
		found, err := find(ctx, q)
		switch {
		case err != nil && own(err):
			line = searchError{text, err.Error()}
		case err != nil:
			return err
		default:
			matched = matched || len(found) > 0
			line = searchLine{text, resultsJSON(found)}
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading queries from stdin: %w", err)
	}
	if queries == 0 {
		return usageError("no query: give QUERY (switchboard search what time is it), or one query per line on stdin")
	}
	if !matched {
		return silentExit(exitFailed)
	}
	return nil
}

// writeText prints found as a table, or a line that says nothing matched.
func (s *searcher) writeText(w io.Writer, q searchQuery, found []apiwire.SearchResult) {
	writeFound(w, q, found, s.Len())
}

// writeFound prints found as a table, or a line that says nothing matched among the
// catalog's tools.
func writeFound(w io.Writer, q searchQuery, found []apiwire.SearchResult, tools int) {
	if len(found) == 0 {
		what := "query"
		if q.regex {
			what = "pattern"
		}
		fmt.Fprintf(w, "No tools match the %s %q (searched %s).\n", what, q.text, plural(tools, "tool"))
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tTOOL\tSERVER\tSCORE\tDESCRIPTION")
	for i, r := range found {
		desc := strings.Join(strings.Fields(r.Description), " ")
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.3f\t%s\n", i+1, r.Name, r.Server, r.Score, firstLine(desc, 60))
	}
	tw.Flush()
}
