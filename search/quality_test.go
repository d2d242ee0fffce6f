package search

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/tool"
)

// The quality data sets live outside the module (../shared/data/toolsearch from
// the module root; README there). A worktree under a sibling folder finds them one
// level further up.
func dataDir(tb testing.TB) string {
	tb.Helper()
	root := testenv.ModuleRoot(tb)
	for _, up := range []string{"..", "../.."} {
		dir := filepath.Join(root, up, "shared", "data", "toolsearch")
		if _, err := os.Stat(filepath.Join(dir, "seal-tools", "tool.jsonl")); err == nil {
			return dir
		}
	}
	testenv.Missing(tb, "tool search data sets not found at %s", filepath.Join(root, "..", "shared", "data", "toolsearch"))
	return ""
}

// request is one query and the names of the tools it needs.
type request struct {
	query string
	gold  []string
}

type dataSet struct {
	name     string
	tools    []tool.Tool
	requests []request
}

func readJSONL(tb testing.TB, path string, each func([]byte)) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			each(sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}

// sealTools converts Seal-Tools' catalog into MCP tools: parameters become a JSON
// Schema object, the server is left empty (the set has no servers).
func sealTools(tb testing.TB, dir string) []tool.Tool {
	tb.Helper()
	var tools []tool.Tool
	readJSONL(tb, filepath.Join(dir, "seal-tools", "tool.jsonl"), func(line []byte) {
		var r struct {
			Name        string `json:"api_name"`
			Description string `json:"api_description"`
			Parameters  map[string]struct {
				Type        string `json:"type"`
				Description string `json:"description"`
			} `json:"parameters"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			tb.Fatalf("seal-tools/tool.jsonl: %v", err)
		}
		props := map[string]any{}
		for n, p := range r.Parameters {
			props[n] = map[string]any{"type": p.Type, "description": p.Description}
		}
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": r.Required})
		tools = append(tools, tool.Tool{Name: r.Name, OriginalName: r.Name, Description: r.Description, InputSchema: schema})
	})
	return tools
}

func sealRequests(tb testing.TB, dir, file string) []request {
	tb.Helper()
	var out []request
	readJSONL(tb, filepath.Join(dir, "seal-tools", file), func(line []byte) {
		var r struct {
			Query   string `json:"query"`
			Calling []struct {
				API string `json:"api"`
			} `json:"calling"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			tb.Fatalf("seal-tools/%s: %v", file, err)
		}
		var gold []string
		seen := map[string]bool{}
		for _, c := range r.Calling {
			if !seen[c.API] {
				seen[c.API] = true
				gold = append(gold, c.API)
			}
		}
		out = append(out, request{query: r.Query, gold: gold})
	})
	return out
}

func toolE(tb testing.TB, dir string) (tools []tool.Tool, single, multi []request) {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "toole", "plugin_des.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var des map[string]string
	if err := json.Unmarshal(data, &des); err != nil {
		tb.Fatalf("toole/plugin_des.json: %v", err)
	}
	names := make([]string, 0, len(des))
	for n := range des {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tools = append(tools, tool.Tool{Name: n, OriginalName: n, Description: des[n], InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	f, err := os.Open(filepath.Join(dir, "toole", "all_clean_data.csv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatalf("toole/all_clean_data.csv: %v", err)
	}
	for _, r := range rows[1:] {
		single = append(single, request{query: r[0], gold: []string{r[1]}})
	}
	data, err = os.ReadFile(filepath.Join(dir, "toole", "multi_tool_query_golden.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var m []struct {
		Query string   `json:"query"`
		Tool  []string `json:"tool"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		tb.Fatalf("toole/multi_tool_query_golden.json: %v", err)
	}
	for _, r := range m {
		multi = append(multi, request{query: r.Query, gold: r.Tool})
	}
	return tools, single, multi
}

// dataSets loads every set; dev is Seal-Tools' tuning split, the rest are reported.
func dataSets(tb testing.TB) []dataSet {
	tb.Helper()
	dir := dataDir(tb)
	seal := sealTools(tb, dir)
	te, single, multi := toolE(tb, dir)
	return []dataSet{
		{"seal-dev", seal, sealRequests(tb, dir, "dev.jsonl")},
		{"seal-in", seal, sealRequests(tb, dir, "test_in_domain.jsonl")},
		{"seal-out", seal, sealRequests(tb, dir, "test_out_domain.jsonl")},
		{"toole-single", te, single},
		{"toole-multi", te, multi},
	}
}

// metrics are the README's: R@k is the share of a request's gold tools in the
// top k, averaged; Comp@k the share of requests with all of them in the top k.
type metrics struct {
	R1, R3, R5, R10, Comp5 float64
}

func (m metrics) String() string {
	return fmt.Sprintf("R@1 %.3f  R@3 %.3f  R@5 %.3f  R@10 %.3f  Comp@5 %.3f", m.R1, m.R3, m.R5, m.R10, m.Comp5)
}

func measureSet(ix *Index, reqs []request) metrics {
	var m metrics
	for _, r := range reqs {
		rank := map[string]int{}
		for i, res := range ix.Search(r.query, 10) {
			rank[res.Tool.Name] = i + 1
		}
		var in1, in3, in5, in10 float64
		for _, g := range r.gold {
			k, ok := rank[g]
			if !ok {
				continue
			}
			if k <= 1 {
				in1++
			}
			if k <= 3 {
				in3++
			}
			if k <= 5 {
				in5++
			}
			in10++
		}
		n := float64(len(r.gold))
		m.R1 += in1 / n
		m.R3 += in3 / n
		m.R5 += in5 / n
		m.R10 += in10 / n
		if in5 == n {
			m.Comp5++
		}
	}
	n := float64(len(reqs))
	m.R1 /= n
	m.R3 /= n
	m.R5 /= n
	m.R10 /= n
	m.Comp5 /= n
	return m
}

// TestPlainBM25Baseline proves the harness: the README's plain BM25 recipe must
// land within two points of the README's figures on every set.
func TestPlainBM25Baseline(t *testing.T) {
	want := map[string]metrics{
		"toole-single": {R1: .376, R3: .496, R5: .543, R10: .604, Comp5: .543},
		"toole-multi":  {R1: .169, R3: .370, R5: .453, R10: .584, Comp5: .181},
		"seal-in":      {R1: .480, R3: .762, R5: .848, R10: .916, Comp5: .616},
		"seal-out":     {R1: .383, R3: .704, R5: .807, R10: .890, Comp5: .521},
	}
	for _, ds := range dataSets(t) {
		w, ok := want[ds.name]
		if !ok {
			continue
		}
		got := measureSet(newIndex(ds.tools, plainBM25), ds.requests)
		t.Logf("%-13s %v", ds.name, got)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"R@1", got.R1, w.R1}, {"R@3", got.R3, w.R3}, {"R@5", got.R5, w.R5}, {"R@10", got.R10, w.R10}, {"Comp@5", got.Comp5, w.Comp5}} {
			if math.Abs(c.got-c.want) > .02 {
				t.Errorf("%s %s = %.3f, README's baseline %.3f", ds.name, c.name, c.got, c.want)
			}
		}
	}
}

// Every Seal-Tools schema reads the same through params as through
// encoding/json.
func TestParamsSealTools(t *testing.T) {
	for _, tl := range sealTools(t, dataDir(t)) {
		if got, want := params(tl.InputSchema), paramsStdlib(tl.InputSchema); !slices.Equal(got, want) {
			t.Fatalf("%s: params = %+v, encoding/json reads %+v", tl.Name, got, want)
		}
	}
}
