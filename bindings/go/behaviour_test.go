package gortexproto

// Behaviours the package documents: exact member names, strict decoding, exact free-form
// numbers, present null, Validate, open enums and the deprecated names.

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestMemberNamesMatchExactlyNotUpToCase(t *testing.T) {
	// Both orders: encoding/json alone lets the later of the two members win.
	for _, doc := range []string{`{"name":"a","Name":"b","version":"1"}`, `{"Name":"b","name":"a","version":"1"}`} {
		var got Implementation
		if err := json.Unmarshal([]byte(doc), &got); err != nil {
			t.Fatal(err)
		}
		if got.Name != "a" {
			t.Errorf("%s: Name = %q, want %q (the exactly named member)", doc, got.Name, "a")
		}
		if string(got.Extra["Name"]) != `"b"` {
			t.Errorf("%s: Extra[Name] = %s, want the case-mismatched member kept as undeclared", doc, got.Extra["Name"])
		}
	}
}

func TestStrictUnmarshalRefusesNamesRepeatedUpToCase(t *testing.T) {
	cases := map[string]string{
		"case":   `{"name":"a","Name":"b","version":"1"}`,
		"exact":  `{"name":"a","name":"b","version":"1"}`,
		"kelvin": `{"name":"a","version":"1","kind":1,"\u212aind":2}`,
		"nested": `{"protocolVersion":"1","capabilities":{},"clientInfo":{"name":"a","NAME":"b","version":"1"}}`,
	}
	for name, doc := range cases {
		var target any = &Implementation{}
		if name == "nested" {
			target = &InitializeRequestParams{}
		}
		err := Unmarshal([]byte(doc), target)
		var duplicate *DuplicateMemberError
		if !errors.As(err, &duplicate) {
			t.Errorf("%s: Unmarshal(%s) = %v, want a DuplicateMemberError", name, doc, err)
		}
	}
	err := Unmarshal([]byte(`{"protocolVersion":"1","capabilities":{},"clientInfo":{"name":"a","NAME":"b","version":"1"}}`), &InitializeRequestParams{})
	var duplicate *DuplicateMemberError
	if errors.As(err, &duplicate) && duplicate.Pointer != "/clientInfo" {
		t.Errorf("pointer = %q, want /clientInfo", duplicate.Pointer)
	}
}

func TestFreeFormIntegersStayExact(t *testing.T) {
	docs := map[string]any{
		`{"name":"t","inputSchema":{"type":"object","maximum":18446744073709551615}}`:                           &Tool{},
		`{"jsonrpc":"2.0","id":-343450693416105472,"method":"m","params":{"n":123456789012345678901234567890}}`: &JSONRPCRequest{},
	}
	for doc, target := range docs {
		if err := Unmarshal([]byte(doc), target); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		encoded, err := json.Marshal(target)
		if err != nil {
			t.Fatal(err)
		}
		for _, number := range []string{"18446744073709551615", "-343450693416105472", "123456789012345678901234567890"} {
			if strings.Contains(doc, number) && !strings.Contains(string(encoded), number) {
				t.Errorf("%s lost %s: re-encoded as %s", doc, number, encoded)
			}
		}
	}
}

func TestPresentNullIsKeptWhereTheSchemaAllowsIt(t *testing.T) {
	docs := map[string]any{
		`{"content":[],"structuredContent":null}`:                      &CallToolResult{},
		`{"code":-32603,"message":"m","data":null}`:                    &JSONRPCError{},
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`: &JSONRPCErrorResponse{},
	}
	for doc, target := range docs {
		if err := Unmarshal([]byte(doc), target); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		encoded, _ := json.Marshal(target)
		want, _ := decodeWithNumbers([]byte(doc))
		got, _ := decodeWithNumbers(encoded)
		if !jsonEqual(want, got) {
			t.Errorf("null not kept: %s became %s", doc, encoded)
		}
	}
}

func TestDecodingRejectsWhatTheRustTypesReject(t *testing.T) {
	cases := map[string]any{
		"undeclared member of a closed object": &JSONRPCRequest{},
		"missing required member":              &Implementation{},
		"integer beyond int64":                 &JSONRPCError{},
		"null for an object":                   &Implementation{},
	}
	docs := map[string]string{
		"undeclared member of a closed object": `{"jsonrpc":"2.0","id":1,"method":"m","extra":1}`,
		"missing required member":              `{"name":"a"}`,
		"integer beyond int64":                 `{"code":9223372036854775808,"message":"m"}`,
		"null for an object":                   `null`,
	}
	for name, target := range cases {
		if err := json.Unmarshal([]byte(docs[name]), target); err == nil {
			t.Errorf("%s: %s decoded without error", name, docs[name])
		}
	}
}

func TestValidateReportsTheOffendingMember(t *testing.T) {
	request := JSONRPCRequest{Jsonrpc: "1.0", ID: RequestID{Raw: json.RawMessage(`7`)}, Method: "ping"}
	err := request.Validate()
	var problems ValidationErrors
	if !errors.As(err, &problems) || len(problems) != 1 || problems[0].Pointer != "/jsonrpc" {
		t.Fatalf("Validate() = %v, want one problem at /jsonrpc", err)
	}
	request.Jsonrpc = JSONRPCVersion20
	if err := request.Validate(); err != nil {
		t.Errorf("valid request: %v", err)
	}
	if err := (CallToolResult{}).Validate(); err == nil {
		t.Error("CallToolResult without content validated; `content` is required")
	}
	if err := Unmarshal([]byte(`{"tool_name":"Read"}`), &BridgeEvent{}); err == nil {
		t.Error("a BridgeEvent document without event was accepted; `event` is required")
	}
	if err := Unmarshal([]byte(`{"name":null,"version":"1"}`), &Implementation{}); err == nil {
		t.Error("a null name was accepted; encoding/json alone reads it as \"\"")
	}
}

func TestAnIntegerIsWrittenWithoutFractionOrExponent(t *testing.T) {
	for doc, valid := range map[string]bool{`1`: true, `-5`: true, `"srv-1"`: true, `1.0`: false, `1e3`: false, `true`: false} {
		err := ValidateJSON([]byte(doc), "mcp", "RequestId")
		if (err == nil) != valid {
			t.Errorf("RequestId %s: Validate error %v, want valid=%v", doc, err, valid)
		}
	}
	// The reason, pinned: decoding refuses an integral float for an integer member too.
	var details FileDiff
	if err := json.Unmarshal([]byte(`{"path":"a","diff":"","patch":"","firstChangedLine":1.0}`), &details); err == nil {
		t.Error("firstChangedLine 1.0 decoded into an integer; Validate could then accept it")
	}
}

// numericSchemas calls visit with every subschema of the embedded schemas whose type admits
// integers or numbers.
func numericSchemas(t *testing.T, visit func(where string, schema map[string]any, integerOnly bool)) {
	documents, err := schemaDocuments()
	if err != nil {
		t.Fatal(err)
	}
	var walk func(value any, where string)
	walk = func(value any, where string) {
		switch v := value.(type) {
		case map[string]any:
			if matchesType(v["type"], json.Number("1.5")) {
				visit(where, v, false)
			} else if matchesType(v["type"], json.Number("1")) {
				visit(where, v, true)
			}
			for key, child := range v {
				walk(child, where+"/"+key)
			}
		case []any:
			for i, child := range v {
				walk(child, where+"/"+strconv.Itoa(i))
			}
		}
	}
	for name, document := range documents {
		walk(document, name)
	}
}

func TestEveryNumberRefusesWhatNoGeneratedTypeHolds(t *testing.T) {
	// Without bounds a standard validator (and this one) would accept these, while Rust cannot
	// even read a number beyond the float64 range and no integer type holds one beyond 64 bits.
	beyondFloat64 := []string{"1e400", "-1e400", "1" + strings.Repeat("0", 400)}
	beyond64Bits := []string{"18446744073709551616", "-9223372036854775809"}
	count := 0
	numericSchemas(t, func(where string, schema map[string]any, integerOnly bool) {
		count++
		probes := beyondFloat64
		if integerOnly {
			probes = append(probes, beyond64Bits...)
		}
		checker := schemaChecker{}
		for _, probe := range probes {
			if checker.matches(schema, json.Number(probe), "") {
				t.Errorf("%s accepts %.30s", where, probe)
			}
		}
	})
	if count < 10 {
		t.Fatalf("only %d numeric schemas found", count)
	}
}

func TestOpenEnumsKnowTheirDocumentedValues(t *testing.T) {
	if !HookModeDeny.IsKnown() || HookMode("shout").IsKnown() {
		t.Error("HookMode.IsKnown does not follow the documented values")
	}
	if err := HookMode("shout").Validate(); err != nil {
		t.Errorf("an open enum accepts other values: %v", err)
	}
	if err := CheckStatus("shout").Validate(); err == nil {
		t.Error("a closed enum accepted a value outside its set")
	}
	if len(HookModeValues()) == 0 || !CheckStatusOK.IsKnown() {
		t.Error("value lists are empty")
	}
}

func TestFormerNamesRemainAsAliases(t *testing.T) {
	var message JsonRpcMessage = JSONRPCMessage{}
	var id RequestId = RequestID{}
	_, _ = message, id
	if CheckStatusOk != CheckStatusOK {
		t.Error("deprecated constant differs from its replacement")
	}
}

func TestValidatorUnderstandsEveryKeywordOfTheSchemas(t *testing.T) {
	// A keyword the interpreter does not know would be silently ignored; fail instead, so
	// that a schema change which needs the validator to grow is noticed.
	entries, err := fs.ReadDir(schemaFiles, "schemas")
	if err != nil || len(entries) == 0 {
		t.Fatalf("no embedded schemas: %v", err)
	}
	var walk func(schema any, where string)
	walk = func(schema any, where string) {
		object, ok := schema.(map[string]any)
		if !ok {
			return
		}
		for key, value := range object {
			here := where + "/" + key
			switch {
			case key == "properties" || key == "$defs":
				members, _ := value.(map[string]any)
				for name, member := range members {
					walk(member, here+"/"+name)
				}
			case key == "oneOf" || key == "anyOf":
				items, _ := value.([]any)
				for _, item := range items {
					walk(item, here)
				}
			case key == "items" || key == "additionalProperties" || key == "not":
				walk(value, here)
			case constraintKeywords[key] || annotationKeywords[key] || strings.HasPrefix(key, "x-"):
			default:
				t.Errorf("%s: keyword %q is not understood by the Go validator", here, key)
			}
		}
	}
	documents, err := schemaDocuments()
	if err != nil {
		t.Fatal(err)
	}
	for name, document := range documents {
		walk(document, name)
	}
}

func TestLoneSurrogateInAStringMemberBecomesReplacementChar(t *testing.T) {
	// The documented exception: pinned so that a change in encoding/json is noticed.
	var got Implementation
	if err := json.Unmarshal([]byte(`{"name":"a\ud800","version":"1","x":"b\ud800"}`), &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "a\uFFFD" {
		t.Errorf("Name = %q, want the lone surrogate replaced by U+FFFD", got.Name)
	}
	if string(got.Extra["x"]) != `"b\ud800"` {
		t.Errorf("Extra[x] = %s, want the free-form member kept as written", got.Extra["x"])
	}
}

func TestPackageDocNamesEveryValueFieldType(t *testing.T) {
	// doc.go is written by hand; the value-field types are marked in the schemas.
	source, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.ReplaceAll(string(source), "\n// ", " ")
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
			goName := reflect.TypeOf(newValue(name)).Elem().Name()
			if !strings.Contains(doc, goName+" (alias "+name+")") {
				t.Errorf("doc.go does not name the value-field type %s (alias %s)", goName, name)
			}
		}
	}
	if found == 0 {
		t.Error("no value-field types found in the schemas")
	}
}
