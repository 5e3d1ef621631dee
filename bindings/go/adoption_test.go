package gortexproto

// What a Go project adopting the package relies on: the daemon-owned types read and write as the
// daemon's own structs do (Gortex's hook aliases them), and a sidecar written from SidecarConfig
// is byte-identical to the one Gortex's installer writes from a map.

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The daemon's structs, as Gortex declares them in internal/hooks (field names, Go types and tags).
type daemonBridgeEvent struct {
	Event        string         `json:"event"`
	ToolName     string         `json:"tool_name,omitempty"`
	ToolInput    map[string]any `json:"tool_input,omitempty"`
	CWD          string         `json:"cwd,omitempty"`
	SessionID    string         `json:"session_id,omitempty"`
	Prompt       string         `json:"prompt,omitempty"`
	IsGortexTool bool           `json:"is_gortex_tool,omitempty"`
}

type daemonBridgeDecision struct {
	Block             bool   `json:"block,omitempty"`
	Reason            string `json:"reason,omitempty"`
	AdditionalContext string `json:"additional_context,omitempty"`
	Orientation       string `json:"orientation,omitempty"`
}

// daemonMirror returns a constructor of the daemon's struct for a daemon-owned schema type.
func daemonMirror(typeName string) (func() any, bool) {
	switch typeName {
	case "HookEvent":
		return func() any { return new(daemonBridgeEvent) }, true
	case "HookDecision":
		return func() any { return new(daemonBridgeDecision) }, true
	}
	return nil, false
}

func TestEveryDaemonOwnedTypeHasTheDaemonsFields(t *testing.T) {
	documents, err := schemaDocuments()
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, document := range documents {
		for name := range asObject(asObject(document)["$defs"]) {
			if _, ok := valueFieldMembers(name); !ok {
				continue
			}
			found++
			mirror, ok := daemonMirror(name)
			if !ok {
				t.Errorf("%s is daemon-owned (x-go-value-fields) but has no daemon struct to compare with", name)
				continue
			}
			ours := reflect.TypeOf(newValue(name)).Elem()
			theirs := reflect.TypeOf(mirror()).Elem()
			if ours.NumField() != theirs.NumField() {
				t.Errorf("%s: %d fields, the daemon's struct has %d", name, ours.NumField(), theirs.NumField())
				continue
			}
			for i := 0; i < ours.NumField(); i++ {
				a, b := ours.Field(i), theirs.Field(i)
				if a.Name != b.Name || a.Type != b.Type || a.Tag != b.Tag {
					t.Errorf("%s field %d: %s %s `%s`, the daemon's is %s %s `%s`", name, i, a.Name, a.Type, a.Tag, b.Name, b.Type, b.Tag)
				}
			}
		}
	}
	if found != 2 {
		t.Errorf("found %d daemon-owned types, want 2 (HookEvent, HookDecision)", found)
	}
}

func TestDaemonOwnedTypesDecodeAsTheDaemonAndUnmarshalByExactNames(t *testing.T) {
	doc := []byte(`{"event":"prompt","Prompt":"x","TOOL_INPUT":{"n":18446744073709551615}}`)
	var ours BridgeEvent
	var daemon daemonBridgeEvent
	if err := json.Unmarshal(doc, &ours); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc, &daemon); err != nil {
		t.Fatal(err)
	}
	if ours.Prompt != "x" || !reflect.DeepEqual(ours.ToolInput, daemon.ToolInput) {
		t.Errorf("json.Unmarshal: %+v, the daemon reads %+v", ours, daemon)
	}
	if n, _ := ours.ToolInput["n"].(float64); n != 18446744073709551615 {
		t.Errorf("tool_input.n = %#v, want the float64 encoding/json reads", ours.ToolInput["n"])
	}
	var strict BridgeEvent
	if err := Unmarshal(doc, &strict); err != nil {
		t.Fatal(err)
	}
	if strict.Prompt != "" || strict.ToolInput != nil || strict.Event != "prompt" {
		t.Errorf("Unmarshal read members named up to case: %+v", strict)
	}
	var decision BridgeDecision
	if err := json.Unmarshal([]byte(`{"Block":true,"REASON":"r"}`), &decision); err != nil {
		t.Fatal(err)
	}
	if !decision.Block || decision.Reason != "r" {
		t.Errorf("json.Unmarshal: %+v, the daemon reads block and reason", decision)
	}
	decision = BridgeDecision{}
	if err := Unmarshal([]byte(`{"Block":true,"REASON":"r"}`), &decision); err != nil || decision != (BridgeDecision{}) {
		t.Errorf("Unmarshal: %+v (%v), want nothing read", decision, err)
	}
	if err := Unmarshal([]byte(`{"event":"prompt","prompt":"a","Prompt":"x"}`), &BridgeEvent{}); err == nil {
		t.Error("Unmarshal accepted prompt and Prompt in one envelope")
	}
}

// readsAsTheDaemon decodes data into a new value of typeName and into the daemon's struct: both
// must succeed or both fail, and both must encode to the same bytes. decoded reports success.
func readsAsTheDaemon(t *testing.T, file string, data []byte, typeName string, mirror func() any) (agrees, decoded bool) {
	t.Helper()
	ours, theirs := newValue(typeName), mirror()
	errOurs, errTheirs := json.Unmarshal(data, ours), json.Unmarshal(data, theirs)
	if (errOurs == nil) != (errTheirs == nil) {
		t.Errorf("%s: decode as %s: %v, the daemon's struct: %v", file, typeName, errOurs, errTheirs)
		return false, false
	}
	if errOurs != nil {
		return true, false
	}
	a, errA := json.Marshal(ours)
	b, errB := json.Marshal(theirs)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("%s: %s encodes as %s (%v), the daemon's struct as %s (%v)", file, typeName, a, errA, b, errB)
		return false, true
	}
	return true, true
}

// namesDeclaredUpToCase reports whether the object data has a member whose name differs from a
// declared member's only in case: encoding/json reads it as that member.
func namesDeclaredUpToCase(data []byte, typeName string) bool {
	declared, _ := valueFieldMembers(typeName)
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil {
		return false
	}
	for name := range members {
		if _, exact := declared[name]; exact {
			continue
		}
		for other := range declared {
			if foldName(name) == foldName(other) {
				return true
			}
		}
	}
	return false
}

// asFloat64Members names the members of typed (a pointer to a struct) whose Go type is
// map[string]any: encoding/json reads their numbers as float64.
func asFloat64Members(typed any) map[string]bool {
	out := map[string]bool{}
	value := reflect.TypeOf(typed).Elem()
	if value.Kind() != reflect.Struct {
		return out
	}
	for i := 0; i < value.NumField(); i++ {
		field := value.Field(i)
		if field.Type == reflect.TypeOf(map[string]any{}) {
			out[strings.Split(field.Tag.Get("json"), ",")[0]] = true
		}
	}
	return out
}

// asFloat64 replaces every number in value by the float64 nearest to it.
func asFloat64(value any) any {
	switch v := value.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(v.String(), 64)
		if err != nil {
			return v
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case map[string]any:
		out := make(map[string]any, len(v))
		for name, member := range v {
			out[name] = asFloat64(member)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = asFloat64(item)
		}
		return out
	}
	return value
}

// installerSidecar is the reference: what Gortex's installer does, in this test's words. It keeps
// only the keys that differ from the extension's defaults in a map (the bin to pin, the posture
// lower-cased and trimmed with adaptive-nudge written as nudge and anything unknown as the
// default deny, enforce false when hooks are not installed), and writes no file when the map is
// empty, else the map indented by two spaces with a trailing newline.
func installerSidecar(t *testing.T, pin, mode string, hooks bool) ([]byte, bool) {
	t.Helper()
	config := map[string]any{}
	if pin != "" {
		config["bin"] = pin
	}
	if posture := installerPosture(mode); posture != "deny" {
		config["hook_mode"] = posture
	}
	if !hooks {
		config["enforce"] = false
	}
	if len(config) == 0 {
		return nil, false
	}
	return indented(t, config), true
}

func installerPosture(mode string) string {
	switch posture := strings.ToLower(strings.TrimSpace(mode)); posture {
	case "enrich", "consult-unlock", "nudge":
		return posture
	case "adaptive-nudge":
		return "nudge"
	}
	return "deny"
}

// typedSidecar writes the same settings through SidecarConfig.
func typedSidecar(t *testing.T, pin, mode string, hooks bool) ([]byte, bool) {
	t.Helper()
	var config SidecarConfig
	if pin != "" {
		config.Bin = &pin
	}
	if posture := installerPosture(mode); posture != string(HookModeDeny) {
		config.HookMode = &posture
	}
	if !hooks {
		off := false
		config.Enforce = &off
	}
	if config == (SidecarConfig{}) {
		return nil, false
	}
	return indented(t, config), true
}

func indented(t *testing.T, value any) []byte {
	t.Helper()
	body, err := json.MarshalIndent(value, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(body, '\n')
}

func TestSidecarConfigWritesTheInstallersBytes(t *testing.T) {
	cases := []struct {
		name  string
		pin   string
		mode  string
		hooks bool
		want  string // "" when no file is written
	}{
		{"all defaults", "", "", true, ""},
		{"deny spelled out", "", "deny", true, ""},
		{"unknown posture", "", "something-else", true, ""},
		{"enrich and hooks off", "", "enrich", false, "{\n  \"enforce\": false,\n  \"hook_mode\": \"enrich\"\n}\n"},
		{"off-PATH binary pinned", "/tmp/t/001/gortex", "", true, "{\n  \"bin\": \"/tmp/t/001/gortex\"\n}\n"},
		{"global mode enrich", "", "enrich", true, "{\n  \"hook_mode\": \"enrich\"\n}\n"},
		{"agent dir override, nudge", "", "nudge", true, "{\n  \"hook_mode\": \"nudge\"\n}\n"},
		{"adaptive-nudge is written as nudge", "", "adaptive-nudge", true, "{\n  \"hook_mode\": \"nudge\"\n}\n"},
		{"posture trimmed and lower-cased", "", "  ENRICH  ", true, "{\n  \"hook_mode\": \"enrich\"\n}\n"},
		{"consult-unlock", "", "consult-unlock", true, "{\n  \"hook_mode\": \"consult-unlock\"\n}\n"},
		{"hooks off alone", "", "", false, "{\n  \"enforce\": false\n}\n"},
		{"every key", "/opt/g <&>/gortex", "consult-unlock", false,
			"{\n  \"bin\": \"/opt/g \\u003c\\u0026\\u003e/gortex\",\n  \"enforce\": false,\n  \"hook_mode\": \"consult-unlock\"\n}\n"},
	}
	for _, c := range cases {
		reference, writes := installerSidecar(t, c.pin, c.mode, c.hooks)
		typed, typedWrites := typedSidecar(t, c.pin, c.mode, c.hooks)
		if writes != typedWrites || !bytes.Equal(reference, typed) {
			t.Errorf("%s: the installer writes %q (file: %v), SidecarConfig %q (file: %v)", c.name, reference, writes, typed, typedWrites)
		}
		if string(reference) != c.want {
			t.Errorf("%s: the reference writes %q, want %q", c.name, reference, c.want)
		}
	}
}

func TestSidecarConfigEncodesKeysInTheOrderOfAMap(t *testing.T) {
	// Every key set, so a key declared out of byte order in the schema is caught even before the
	// installer writes it.
	var full SidecarConfig
	fields := reflect.ValueOf(&full).Elem()
	for i := 0; i < fields.NumField(); i++ {
		field := fields.Field(i)
		field.Set(reflect.New(field.Type().Elem()))
	}
	typed := indented(t, full)
	var asMap map[string]any
	if err := json.Unmarshal(typed, &asMap); err != nil {
		t.Fatal(err)
	}
	if fields := reflect.TypeOf(full).NumField(); len(asMap) != fields {
		t.Fatalf("%d keys written, SidecarConfig has %d fields", len(asMap), fields)
	}
	if reference := indented(t, asMap); !bytes.Equal(reference, typed) {
		t.Errorf("SidecarConfig writes\n%s\na map of the same keys writes\n%s", typed, reference)
	}
}
