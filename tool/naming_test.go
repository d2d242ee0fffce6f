package tool

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNamePattern(t *testing.T) {
	for name, ok := range map[string]bool{
		"a": true, "get_weather": true, "A-b_9": true, strings.Repeat("x", 64): true,
		"": false, "a.b": false, "a b": false, "é": false, strings.Repeat("x", 65): false, "a/b": false,
	} {
		if NamePattern.MatchString(name) != ok {
			t.Errorf("NamePattern(%q) = %v, want %v", name, !ok, ok)
		}
	}
}

func TestSanitize(t *testing.T) {
	a64 := strings.Repeat("a", 64)
	a65 := strings.Repeat("a", 65)
	a128 := strings.Repeat("b", 128)
	dotted := strings.Repeat("x.", 40) // 80 chars, hash must be over the dotted original
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "search", 64, "search"},
		{"keeps dash and underscore", "get_file-contents", 64, "get_file-contents"},
		{"dots", "fs.read.file", 64, "fs_read_file"},
		{"slashes", "repo/issues/list", 64, "repo_issues_list"},
		{"spaces", "list all things", 64, "list_all_things"},
		{"unicode one underscore per rune", "héllo wörld", 64, "h_llo_w_rld"},
		{"cjk", "検索", 64, "__"},
		{"emoji", "go🚀", 64, "go_"},
		{"empty", "", 64, "tool"},
		{"exactly 64", a64, 64, a64},
		{"65 shortened", a65, 64, strings.Repeat("a", 55) + "_" + hash8(a65)},
		{"128 shortened", a128, 64, strings.Repeat("b", 55) + "_" + hash8(a128)},
		{"hash of original input", dotted, 64, strings.Repeat("x_", 28)[:55] + "_" + hash8(dotted)},
		{"smaller max", "abcdefghijklmnop", 12, "abc_" + hash8("abcdefghijklmnop")},
		{"zero max means 64", a65, 0, strings.Repeat("a", 55) + "_" + hash8(a65)},
		{"tiny max is hash only", "abcdef", 4, hash8("abcdef")[:4]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sanitize(tc.in, tc.max)
			if got != tc.want {
				t.Errorf("sanitize(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
			if !NamePattern.MatchString(got) {
				t.Errorf("sanitize(%q, %d) = %q does not match %s", tc.in, tc.max, got, NamePattern)
			}
			if again := sanitize(tc.in, tc.max); again != got {
				t.Errorf("not stable: %q then %q", got, again)
			}
		})
	}
}

func TestSanitizeLongNamesStayDistinct(t *testing.T) {
	shared := strings.Repeat("p", 70)
	a, b := sanitize(shared+"_alpha"+strings.Repeat("z", 52), 64), sanitize(shared+"_beta"+strings.Repeat("z", 53), 64)
	if a == b {
		t.Fatalf("different long inputs with a shared 70-char prefix gave the same name %q", a)
	}
	// Inputs that sanitize identically must still differ once shortened.
	c, d := sanitize(shared+".x", 64), sanitize(shared+"_x", 64)
	if c == d {
		t.Fatalf("%q and %q both became %q", shared+".x", shared+"_x", c)
	}
	for _, s := range []string{a, b, c, d} {
		if len(s) != 64 || !NamePattern.MatchString(s) {
			t.Errorf("bad shortened name %q (len %d)", s, len(s))
		}
	}
}

func in(server, tool string) NameInput { return NameInput{Key: Key{server, tool}} }

func inP(server, prefix, tool string) NameInput {
	return NameInput{Key: Key{server, tool}, Prefix: prefix}
}

// kept gives in the name it has in a running catalog.
func kept(in NameInput, name string) NameInput {
	in.Keep = name
	return in
}

// ranked gives in its server's place in the config.
func ranked(in NameInput, rank int) NameInput {
	in.Rank = rank
	return in
}

// explicit marks in's prefix as set by the user (a server's "prefix").
func explicit(in NameInput) NameInput {
	in.Explicit = true
	return in
}

func TestAssignNames(t *testing.T) {
	long := strings.Repeat("t", 70) + strings.Repeat("1", 58) // 128 chars
	long2 := strings.Repeat("t", 70) + strings.Repeat("2", 58)
	srvA := strings.Repeat("s", 70) + "A"
	srvB := strings.Repeat("s", 70) + "B"
	tests := []struct {
		name    string
		policy  Naming
		tools   []NameInput
		want    map[Key]string
		wantErr []string // substrings of the error; nil means no error
	}{
		{
			name:   "auto no collision",
			policy: NamingAuto,
			tools:  []NameInput{in("github", "search"), in("fs", "read.file"), in("local", "echo")},
			want: map[Key]string{
				{"github", "search"}: "search", {"fs", "read.file"}: "read_file", {"local", "echo"}: "echo",
			},
		},
		{
			name:   "empty policy is auto; only colliding names prefixed",
			policy: "",
			tools:  []NameInput{in("github", "search"), in("gitlab", "search"), in("github", "issues"), in("gitlab", "mrs")},
			want: map[Key]string{
				{"github", "search"}: "github__search", {"gitlab", "search"}: "gitlab__search",
				{"github", "issues"}: "issues", {"gitlab", "mrs"}: "mrs",
			},
		},
		{
			name:   "auto collision created by sanitizing across servers",
			policy: NamingAuto,
			tools:  []NameInput{in("a", "x.y"), in("b", "x_y")},
			want:   map[Key]string{{"a", "x.y"}: "a__x_y", {"b", "x_y"}: "b__x_y"},
		},
		{
			name:   "always prefixes everything",
			policy: NamingAlways,
			tools:  []NameInput{in("github", "search"), in("gitlab", "search"), in("local", "echo")},
			want: map[Key]string{
				{"github", "search"}: "github__search", {"gitlab", "search"}: "gitlab__search", {"local", "echo"}: "local__echo",
			},
		},
		{
			name:   "never without collision",
			policy: NamingNever,
			tools:  []NameInput{in("github", "search"), in("gitlab", "mrs")},
			want:   map[Key]string{{"github", "search"}: "search", {"gitlab", "mrs"}: "mrs"},
		},
		{
			name:   "never with collisions reports all in one line, grouped by servers",
			policy: NamingNever,
			tools: []NameInput{in("gitlab", "search"), in("github", "search"), in("a", "zz"), in("b", "zz"), in("c", "zz"),
				in("gitlab", "list"), in("github", "list"), in("github", "only")},
			wantErr: []string{
				`naming "never": 1 tool collides between "a", "b" and "c" (zz); ` +
					`2 tools collide between "github" and "gitlab" (list, search); set "prefix" on all but one of them, allow/deny the tools, or use naming "auto"`,
			},
		},
		{
			name:    "never lists five tools of a group, then …",
			policy:  NamingNever,
			tools:   []NameInput{in("a", "t1"), in("b", "t1"), in("a", "t2"), in("b", "t2"), in("a", "t3"), in("b", "t3"), in("a", "t4"), in("b", "t4"), in("a", "t5"), in("b", "t5"), in("a", "t6"), in("b", "t6")},
			wantErr: []string{`naming "never": 6 tools collide between "a" and "b" (t1, t2, t3, t4, t5, …); set "prefix" on one of them,`},
		},
		{
			name:   "never applies an explicit prefix to resolve a collision",
			policy: NamingNever,
			tools:  []NameInput{explicit(inP("clock2", "c2", "now")), in("clock", "now"), explicit(inP("clock2", "c2", "mine"))},
			want:   map[Key]string{{"clock2", "now"}: "c2__now", {"clock", "now"}: "now", {"clock2", "mine"}: "mine"},
		},
		{
			name:    "never: a prefix on one of three servers leaves two colliding",
			policy:  NamingNever,
			tools:   []NameInput{explicit(inP("a", "pa", "x")), in("b", "x"), inP("c", "pc", "x")},
			wantErr: []string{`naming "never": 1 tool collides between "b" and "c" (x); set "prefix" on one of them`},
		},
		{
			name:   "auto prefixes every colliding tool, explicit prefix or not",
			policy: NamingAuto,
			tools:  []NameInput{explicit(inP("clock2", "c2", "now")), in("clock", "now")},
			want:   map[Key]string{{"clock2", "now"}: "c2__now", {"clock", "now"}: "clock__now"},
		},
		{
			name:    "unknown policy",
			policy:  "sometimes",
			tools:   []NameInput{in("a", "b")},
			wantErr: []string{`unknown naming policy "sometimes"`},
		},
		{
			name:   "per-server prefix override",
			policy: NamingAuto,
			tools:  []NameInput{inP("github-enterprise", "ghe", "search"), in("gitlab", "search"), inP("github-enterprise", "ghe", "other")},
			want: map[Key]string{
				{"github-enterprise", "search"}: "ghe__search", {"gitlab", "search"}: "gitlab__search",
				{"github-enterprise", "other"}: "other",
			},
		},
		{
			name:   "prefix is sanitized",
			policy: NamingAlways,
			tools:  []NameInput{inP("x", "my.prefix", "t"), in("my server", "t")},
			want:   map[Key]string{{"x", "t"}: "my_prefix__t", {"my server", "t"}: "my_server__t"},
		},
		{
			name:   "a.b vs a_b in one server: exact name wins",
			policy: NamingAuto,
			tools:  []NameInput{in("s", "a.b"), in("s", "a_b")},
			want:   map[Key]string{{"s", "a_b"}: "a_b", {"s", "a.b"}: "a_b_" + hash8("s\x00a.b")},
		},
		{
			name:   "a.b vs a/b in one server: first by original name wins",
			policy: NamingNever,
			tools:  []NameInput{in("s", "a/b"), in("s", "a.b")},
			want:   map[Key]string{{"s", "a.b"}: "a_b", {"s", "a/b"}: "a_b_" + hash8("s\x00a/b")},
		},
		{
			name:   "sanitize collision in one server plus cross-server collision",
			policy: NamingAuto,
			tools:  []NameInput{in("x", "a.b"), in("x", "a_b"), in("y", "a_b")},
			want: map[Key]string{
				{"x", "a_b"}: "x__a_b", {"x", "a.b"}: "x__a_b_" + hash8("x\x00a.b"), {"y", "a_b"}: "y__a_b",
			},
		},
		{
			name:   "hash-suffixed name already taken by a real tool",
			policy: NamingAuto,
			tools:  []NameInput{in("s", "a.b"), in("s", "a_b"), in("s", "a_b_"+hash8("s\x00a.b"))},
			want: map[Key]string{
				{"s", "a_b"}: "a_b", {"s", "a_b_" + hash8("s\x00a.b")}: "a_b_" + hash8("s\x00a.b"),
				{"s", "a.b"}: "a_b_" + hash8("s\x00a.b\x001"),
			},
		},
		{
			name:   "duplicate prefixes",
			policy: NamingAuto,
			tools:  []NameInput{inP("one", "p", "t"), inP("two", "p", "t")},
			want:   map[Key]string{{"one", "t"}: "p__t", {"two", "t"}: "p__t_" + hash8("two\x00t")},
		},
		{
			name:   "prefixed name equal to another tool's plain name",
			policy: NamingAuto,
			tools:  []NameInput{in("a", "b"), in("c", "b"), in("z", "a__b")},
			want:   map[Key]string{{"a", "b"}: "a__b", {"c", "b"}: "c__b", {"z", "a__b"}: "a__b_" + hash8("z\x00a__b")},
		},
		{
			name:   "prefix containing __ makes the same name as another server",
			policy: NamingAlways,
			tools:  []NameInput{inP("x", "a__b", "c"), inP("y", "a", "b__c")},
			want:   map[Key]string{{"x", "c"}: "a__b__c", {"y", "b__c"}: "a__b__c_" + hash8("y\x00b__c")},
		},
		{
			name:   "128-char names sharing a 70-char prefix, two servers",
			policy: NamingAuto,
			tools:  []NameInput{in("github", long), in("gitlab", long), in("github", long2)},
			want: map[Key]string{
				{"github", long}:  "github__" + strings.Repeat("t", 47) + "_" + hash8("github\x00"+long),
				{"gitlab", long}:  "gitlab__" + strings.Repeat("t", 47) + "_" + hash8("gitlab\x00"+long),
				{"github", long2}: strings.Repeat("t", 55) + "_" + hash8(long2),
			},
		},
		{
			name:   "long server names sharing a 70-char prefix keep distinct readable prefixes",
			policy: NamingAlways,
			tools:  []NameInput{in(srvA, long), in(srvB, long)},
			want: map[Key]string{
				{srvA, long}: strings.Repeat("s", 23) + "_" + hash8(srvA) + "__" + strings.Repeat("t", 21) + "_" + hash8(srvA+"\x00"+long),
				{srvB, long}: strings.Repeat("s", 23) + "_" + hash8(srvB) + "__" + strings.Repeat("t", 21) + "_" + hash8(srvB+"\x00"+long),
			},
		},
		{
			name:   "same key twice is named once",
			policy: NamingAuto,
			tools:  []NameInput{in("s", "t"), in("s", "t")},
			want:   map[Key]string{{"s", "t"}: "t"},
		},
		{
			name:   "empty input",
			policy: NamingAuto,
			want:   map[Key]string{},
		},
		{
			name:   "auto: a running tool keeps its plain name, the newcomer takes the prefix",
			policy: NamingAuto,
			tools:  []NameInput{kept(in("memory", "create_entities"), "create_entities"), in("kg", "create_entities"), in("kg", "other")},
			want: map[Key]string{
				{"memory", "create_entities"}: "create_entities", {"kg", "create_entities"}: "kg__create_entities", {"kg", "other"}: "other",
			},
		},
		{
			name:   "auto: a prefixed name is kept after its collision went",
			policy: NamingAuto,
			tools:  []NameInput{kept(in("a", "x"), "a__x"), kept(in("a", "y"), "y")},
			want:   map[Key]string{{"a", "x"}: "a__x", {"a", "y"}: "y"},
		},
		{
			name:   "auto: two newcomers sharing a kept name are both prefixed",
			policy: NamingAuto,
			tools:  []NameInput{kept(in("a", "x"), "x"), in("b", "x"), in("c", "x")},
			want:   map[Key]string{{"a", "x"}: "x", {"b", "x"}: "b__x", {"c", "x"}: "c__x"},
		},
		{
			name:   "auto: a Keep the policy would not give is not kept",
			policy: NamingAuto,
			tools:  []NameInput{kept(in("a", "x"), "something_else"), in("b", "x")},
			want:   map[Key]string{{"a", "x"}: "a__x", {"b", "x"}: "b__x"},
		},
		{
			name:   "auto: a kept name wins over a newcomer's exact one",
			policy: NamingAuto,
			tools:  []NameInput{kept(in("a", "x"), "a__x"), in("c", "x"), in("q", "a__x")},
			want: map[Key]string{
				{"a", "x"}: "a__x", {"c", "x"}: "c__x", {"q", "a__x"}: "a__x_" + hash8("q\x00a__x"),
			},
		},
		{
			name:   "auto: the first server in the config keeps a shared name, whatever the input order",
			policy: NamingAuto,
			tools:  []NameInput{ranked(in("kg", "create_entities"), 2), ranked(in("memory", "create_entities"), 1), ranked(in("z", "create_entities"), 3), ranked(in("z", "y"), 3)},
			want: map[Key]string{
				{"memory", "create_entities"}: "create_entities", {"kg", "create_entities"}: "kg__create_entities",
				{"z", "create_entities"}: "z__create_entities", {"z", "y"}: "y",
			},
		},
		{
			name:   "auto: a kept name wins over the first server's rank",
			policy: NamingAuto,
			tools:  []NameInput{ranked(kept(in("kg", "x"), "x"), 2), ranked(in("memory", "x"), 1)},
			want:   map[Key]string{{"kg", "x"}: "x", {"memory", "x"}: "memory__x"},
		},
		{
			name:   "auto: equal ranks (or none) leave no server first: every sharer is prefixed",
			policy: NamingAuto,
			tools:  []NameInput{ranked(in("a", "x"), 1), ranked(in("b", "x"), 1), in("c", "y"), in("d", "y")},
			want:   map[Key]string{{"a", "x"}: "a__x", {"b", "x"}: "b__x", {"c", "y"}: "c__y", {"d", "y"}: "d__y"},
		},
		{
			name:   "never: ranks change nothing",
			policy: NamingNever,
			tools:  []NameInput{ranked(in("a", "x"), 1), ranked(explicit(inP("b", "bp", "x")), 2)},
			want:   map[Key]string{{"a", "x"}: "x", {"b", "x"}: "bp__x"},
		},
		{
			name:   "always: a kept plain name gives way to the policy",
			policy: NamingAlways,
			tools:  []NameInput{kept(in("a", "x"), "x")},
			want:   map[Key]string{{"a", "x"}: "a__x"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AssignNames(tc.policy, tc.tools)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("want error, got names %v", got)
				}
				var ce *CollisionError
				if tc.policy == NamingNever && !errors.As(err, &ce) {
					t.Errorf("error %T is not a *CollisionError", err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error %q spans several lines", err)
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(got) != len(tc.want) {
				t.Errorf("got %d names, want %d: %v", len(got), len(tc.want), got)
			}
			for k, w := range tc.want {
				if got[k] != w {
					t.Errorf("%v: got %q, want %q", k, got[k], w)
				}
			}
			checkValidUnique(t, got)
			// Every order of the same inputs gives the same result.
			r := rand.New(rand.NewPCG(1, 2))
			for range 10 {
				shuffled := append([]NameInput(nil), tc.tools...)
				r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				again, err := AssignNames(tc.policy, shuffled)
				if err != nil || !maps.Equal(got, again) {
					t.Fatalf("order changed the result: %v (err %v) vs %v", again, err, got)
				}
			}
		})
	}
}

func TestAssignNamesProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 7))
	servers := []string{"github", "gitlab", "local", "fs", "a__b", "very.long.server.name.with.dots.and.more.than.thirty-two.chars", "日本"}
	prefixes := map[string]string{"fs": "files", "gitlab": "github"} // gitlab deliberately shares github's prefix
	pieces := []string{"search", "a", "b", ".", "/", "_", "-", " ", "é", "🚀", "get", "list", "x", "__"}
	var tools []NameInput
	for range 500 {
		var b strings.Builder
		for n := r.IntN(6) + 1; n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		if r.IntN(10) == 0 { // some very long names
			b.WriteString(strings.Repeat("long", 20+r.IntN(20)))
		}
		s := servers[r.IntN(len(servers))]
		tools = append(tools, inP(s, prefixes[s], b.String()))
	}
	keys := map[Key]bool{}
	for _, t := range tools {
		keys[t.Key] = true
	}
	for _, policy := range []Naming{NamingAuto, NamingAlways, NamingNever} {
		t.Run(string(policy), func(t *testing.T) {
			got, err := AssignNames(policy, tools)
			if policy == NamingNever {
				if err == nil {
					t.Fatal("expected collisions under never with this input")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(keys) {
					t.Fatalf("got %d names for %d distinct tools", len(got), len(keys))
				}
				checkValidUnique(t, got)
			}
			for range 5 {
				shuffled := append([]NameInput(nil), tools...)
				r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				again, err2 := AssignNames(policy, shuffled)
				if fmt.Sprint(err) != fmt.Sprint(err2) || !maps.Equal(got, again) {
					t.Fatal("result depends on input order")
				}
			}
		})
	}
}

func checkValidUnique(t *testing.T, names map[Key]string) {
	t.Helper()
	seen := map[string]Key{}
	for k, n := range names {
		if !NamePattern.MatchString(n) {
			t.Errorf("%v: %q does not match %s", k, n, NamePattern)
		}
		if other, dup := seen[n]; dup {
			t.Errorf("%q assigned to both %v and %v", n, other, k)
		}
		seen[n] = k
	}
}

// TestCollisionInvolves: the hub leaves out exactly the tools a CollisionError names,
// by the names they collide under (sanitized), on the servers without a prefix.
func TestCollisionInvolves(t *testing.T) {
	in := func(server, name, prefix string) NameInput {
		return NameInput{Key: Key{Server: server, Tool: name}, Prefix: prefix, Explicit: prefix != ""}
	}
	inputs := []NameInput{
		in("a", "echo", ""), in("b", "echo", ""), in("c", "echo", "cc"),
		in("a", "my.tool", ""), in("b", "my_tool", ""),
		in("a", "only_a", ""),
	}
	_, err := AssignNames(NamingNever, inputs)
	ce, ok := err.(*CollisionError)
	if !ok {
		t.Fatalf("AssignNames: %v, want a *CollisionError", err)
	}
	want := map[Key]bool{
		{Server: "a", Tool: "echo"}: true, {Server: "b", Tool: "echo"}: true,
		{Server: "a", Tool: "my.tool"}: true, {Server: "b", Tool: "my_tool"}: true,
	}
	for _, n := range inputs {
		if got := ce.Involves(n); got != want[n.Key] {
			t.Errorf("Involves(%s/%s) = %v, want %v", n.Server, n.Tool, got, want[n.Key])
		}
	}
}
