package gortexproto

// The corpus round trip: every schema-valid value shipped in testdata/ validates, decodes (exact
// member names), re-encodes, and comes back as the same JSON value, numbers compared
// by exact value. Invalid examples must be refused. The data is embedded, so the tests pass from
// a copy of the module outside the repository (the module cache).

import (
	"embed"
	"encoding/json"
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing"
)

//go:embed testdata
var testdata embed.FS

// corpusFiles lists testdata/roundtrip/<Type>/*.json (the generated corpus) and
// testdata/examples/<Type>/<kind>/*.json (the hand-written examples) as type -> files.
func corpusFiles(t *testing.T, kind string) map[string][]string {
	t.Helper()
	found := map[string][]string{}
	patterns := []string{"testdata/examples/*/" + kind + "/*.json"}
	if kind == "valid" {
		patterns = append(patterns, "testdata/roundtrip/*/*.json")
	}
	for _, pattern := range patterns {
		matches, err := fs.Glob(testdata, pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range matches {
			typeName := strings.Split(file, "/")[2]
			found[typeName] = append(found[typeName], file)
		}
	}
	return found
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

func TestEverySchemaValidValueRoundTripsExactly(t *testing.T) {
	files := corpusFiles(t, "valid")
	if len(files) == 0 {
		t.Fatal("no corpus values found under testdata/")
	}
	total := 0
	for _, typeName := range sortedKeys(files) {
		if newValue(typeName) == nil {
			t.Errorf("%s: no Go type for this schema type", typeName)
			continue
		}
		passed := 0
		for _, file := range files[typeName] {
			data, err := testdata.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if roundTrips(t, typeName, file, data) {
				passed++
			}
		}
		total += passed
		t.Logf("%-28s %3d of %3d values round-tripped", typeName, passed, len(files[typeName]))
	}
	t.Logf("%d values round-tripped in all", total)
}

func roundTrips(t *testing.T, typeName, file string, data []byte) bool {
	t.Helper()
	typed := newValue(typeName)
	// Unmarshal without its repeated-names check: an open object may validly hold both "name"
	// and an undeclared "Name", which the exact-name decoding must carry through.
	schemaFile, def := typed.(schemaTyped).schemaType()
	if err := ValidateJSON(data, schemaFile, def); err != nil {
		t.Errorf("%s: not valid as %s: %v", file, typeName, err)
		return false
	}
	if mirror, ok := daemonMirror(typeName); ok {
		// A daemon-owned type must read and write as the daemon's struct does, whatever the
		// document; a member named as a declared one up to case is read as that member, so such
		// a document is compared with the daemon's reading only.
		agrees, decoded := readsAsTheDaemon(t, file, data, typeName, mirror)
		if !agrees {
			return false
		}
		if !decoded || namesDeclaredUpToCase(data, typeName) {
			return true
		}
	}
	if err := json.Unmarshal(data, typed); err != nil {
		t.Errorf("%s: decode as %s: %v", file, typeName, err)
		return false
	}
	encoded, err := json.Marshal(typed)
	if err != nil {
		t.Errorf("%s: encode: %v", file, err)
		return false
	}
	want, err := decodeWithNumbers(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	got, err := decodeWithNumbers(encoded)
	if err != nil {
		t.Fatalf("%s: re-encoded value is not JSON: %v", file, err)
	}
	if declared, ok := valueFieldMembers(typeName); ok {
		// The documented exception: value-field types read and write as the daemon's structs,
		// which drop zero values (omitempty) and undeclared members.
		want = dropAsValueFields(want, declared)
		members, _ := want.(map[string]any)
		for name := range asFloat64Members(typed) {
			members[name] = asFloat64(members[name])
			if object, ok := got.(map[string]any); ok {
				object[name] = asFloat64(object[name])
			}
		}
	}
	if !jsonEqual(want, got) {
		t.Errorf("%s: round trip as %s changed the value\nwant %s\n got %s", file, typeName, data, encoded)
		return false
	}
	return true
}

// dropAsValueFields removes what a value-field struct cannot carry: undeclared members, and
// declared ones whose value is JSON's zero for omitempty (false, 0, "", {}, [], null).
func dropAsValueFields(value any, declared map[string]bool) any {
	object, ok := value.(map[string]any)
	if !ok {
		return value
	}
	kept := map[string]any{}
	for name, member := range object {
		optional, isDeclared := declared[name]
		if !isDeclared || (optional && isZero(member)) {
			continue
		}
		kept[name] = member
	}
	return kept
}

func isZero(value any) bool {
	switch v := value.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case json.Number:
		return compareNumbers(v, "0") == 0
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

func TestEveryInvalidExampleIsRefused(t *testing.T) {
	files := corpusFiles(t, "invalid")
	if len(files) == 0 {
		t.Fatal("no invalid examples found under testdata/examples")
	}
	for _, typeName := range sortedKeys(files) {
		for _, file := range files[typeName] {
			data, err := testdata.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			typed := newValue(typeName)
			if typed == nil {
				t.Errorf("%s: no Go type", typeName)
				continue
			}
			if err := Unmarshal(data, typed); err == nil {
				t.Errorf("%s: accepted as %s, but the example is invalid", file, typeName)
			}
		}
	}
}

func TestTestdataIsEmbeddedInsideTheModule(t *testing.T) {
	// The corpus must travel with the module: a path outside it would break in the module cache.
	entries, err := fs.ReadDir(testdata, path.Join("testdata", "examples"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("testdata/examples is missing from the module: %v", err)
	}
}
