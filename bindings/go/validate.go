package gortexproto

// Validation against the schemas themselves: the JSON Schema files this package was generated
// from are embedded (schemas/), and each generated Validate method checks the JSON encoding of
// its value against its own definition with the small interpreter below. It understands exactly
// the keyword subset pi-gortex-codegen's lint admits, so no third-party validator is needed, and
// it cannot drift from the schemas: it reads them.

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

//go:embed schemas/*.schema.json
var schemaFiles embed.FS

// ValidationError is one way a value breaks its schema.
type ValidationError struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value; "" is the whole value.
	Pointer string
	// Message says what is wrong.
	Message string
}

func (e ValidationError) Error() string {
	pointer := e.Pointer
	if pointer == "" {
		pointer = "(root)"
	}
	return pointer + ": " + e.Message
}

// ValidationErrors is every problem found in one value, in document order. Validate methods
// return it (never an empty one) as their error.
type ValidationErrors []ValidationError

func (e ValidationErrors) Error() string {
	parts := make([]string, len(e))
	for i, one := range e {
		parts[i] = one.Error()
	}
	return "gortexproto: invalid value: " + strings.Join(parts, "; ")
}

// annotationKeywords carry no constraint.
var annotationKeywords = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "title": true, "description": true,
	"examples": true, "default": true, "deprecated": true,
}

// constraintKeywords are the keywords the interpreter enforces.
var constraintKeywords = map[string]bool{
	"$ref": true, "type": true, "enum": true, "const": true, "properties": true,
	"required": true, "additionalProperties": true, "items": true, "oneOf": true, "anyOf": true,
	"not": true, "minimum": true, "maximum": true, "minLength": true, "maxLength": true,
	"minItems": true, "maxItems": true,
}

var loaded struct {
	once sync.Once
	docs map[string]any
	err  error
}

// schemaDocuments returns the embedded schema documents by file stem (e.g. "mcp").
func schemaDocuments() (map[string]any, error) {
	loaded.once.Do(func() {
		entries, err := schemaFiles.ReadDir("schemas")
		if err != nil {
			loaded.err = err
			return
		}
		loaded.docs = map[string]any{}
		for _, entry := range entries {
			data, err := schemaFiles.ReadFile("schemas/" + entry.Name())
			if err != nil {
				loaded.err = err
				return
			}
			document, err := decodeWithNumbers(data)
			if err != nil {
				loaded.err = fmt.Errorf("gortexproto: embedded schema %s: %w", entry.Name(), err)
				return
			}
			loaded.docs[strings.TrimSuffix(entry.Name(), ".schema.json")] = document
		}
	})
	return loaded.docs, loaded.err
}

// decodeWithNumbers decodes JSON keeping every number as its exact text (json.Number).
func decodeWithNumbers(data []byte) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var value any
	if err := decoder.Decode(&value); err != nil {
		return nil, err
	}
	if decoder.More() {
		return nil, fmt.Errorf("gortexproto: data after the JSON value")
	}
	return value, nil
}

// validateAs checks the JSON encoding of value against $defs/<def> of the schema file <file>.
func validateAs(value any, file, def string) error {
	data, err := json.Marshal(value)
	if err != nil {
		return err
	}
	return ValidateJSON(data, file, def)
}

// ValidateJSON checks the JSON document data against the type def (a `$defs` name such as
// "JsonRpcMessage") of the schema file named by its stem (such as "mcp"). It returns
// ValidationErrors when the document breaks the schema, and another error when data is not
// JSON or the type is unknown.
func ValidateJSON(data []byte, file, def string) error {
	documents, err := schemaDocuments()
	if err != nil {
		return err
	}
	document, ok := documents[file]
	if !ok {
		return fmt.Errorf("gortexproto: no schema file %q", file)
	}
	schema, ok := lookupDef(document, def)
	if !ok {
		return fmt.Errorf("gortexproto: schema %q has no type %q", file, def)
	}
	instance, err := decodeWithNumbers(data)
	if err != nil {
		return err
	}
	checker := schemaChecker{document: document}
	checker.check(schema, instance, "")
	if len(checker.errors) == 0 {
		return nil
	}
	return checker.errors
}

func lookupDef(document any, name string) (any, bool) {
	root, _ := document.(map[string]any)
	defs, _ := root["$defs"].(map[string]any)
	schema, ok := defs[name]
	return schema, ok
}

type schemaChecker struct {
	document any
	errors   ValidationErrors
}

func (c *schemaChecker) fail(pointer, format string, args ...any) {
	c.errors = append(c.errors, ValidationError{Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// matches reports whether instance is valid against schema, without recording errors.
func (c *schemaChecker) matches(schema, instance any, pointer string) bool {
	sub := schemaChecker{document: c.document}
	sub.check(schema, instance, pointer)
	return len(sub.errors) == 0
}

func (c *schemaChecker) check(schema, instance any, pointer string) {
	switch s := schema.(type) {
	case bool:
		if !s {
			c.fail(pointer, "no value is allowed here")
		}
		return
	case map[string]any:
		c.checkObjectSchema(s, instance, pointer)
	}
}

func (c *schemaChecker) checkObjectSchema(schema map[string]any, instance any, pointer string) {
	if ref, ok := schema["$ref"].(string); ok {
		target, found := lookupDef(c.document, strings.TrimPrefix(ref, "#/$defs/"))
		if !found {
			c.fail(pointer, "unresolvable $ref %q", ref)
			return
		}
		c.check(target, instance, pointer)
	}
	if types, ok := schema["type"]; ok && !matchesType(types, instance) {
		c.fail(pointer, "expected %s, got %s", describeTypes(types), kindOf(instance))
		return
	}
	if constant, ok := schema["const"]; ok && !jsonEqual(constant, instance) {
		c.fail(pointer, "expected %s", compactJSON(constant))
	}
	if allowed, ok := schema["enum"].([]any); ok {
		found := false
		for _, candidate := range allowed {
			if jsonEqual(candidate, instance) {
				found = true
				break
			}
		}
		if !found {
			c.fail(pointer, "expected one of %s", compactJSON(allowed))
		}
	}
	c.checkUnions(schema, instance, pointer)
	switch value := instance.(type) {
	case map[string]any:
		c.checkObject(schema, value, pointer)
	case []any:
		c.checkArray(schema, value, pointer)
	case string:
		length := json.Number(strconv.Itoa(utf8.RuneCountInString(value)))
		if bound, ok := schema["minLength"].(json.Number); ok && compareNumbers(length, bound) < 0 {
			c.fail(pointer, "shorter than %s characters", bound)
		}
		if bound, ok := schema["maxLength"].(json.Number); ok && compareNumbers(length, bound) > 0 {
			c.fail(pointer, "longer than %s characters", bound)
		}
	case json.Number:
		if bound, ok := schema["minimum"].(json.Number); ok && compareNumbers(value, bound) < 0 {
			c.fail(pointer, "less than the minimum %s", bound)
		}
		if bound, ok := schema["maximum"].(json.Number); ok && compareNumbers(value, bound) > 0 {
			c.fail(pointer, "greater than the maximum %s", bound)
		}
	}
}

func (c *schemaChecker) checkUnions(schema map[string]any, instance any, pointer string) {
	if variants, ok := schema["oneOf"].([]any); ok {
		count := 0
		for _, variant := range variants {
			if c.matches(variant, instance, pointer) {
				count++
			}
		}
		if count != 1 {
			c.fail(pointer, "matches %d of the %d oneOf variants; exactly one must match", count, len(variants))
		}
	}
	if variants, ok := schema["anyOf"].([]any); ok {
		matched := false
		for _, variant := range variants {
			if c.matches(variant, instance, pointer) {
				matched = true
				break
			}
		}
		if !matched {
			c.fail(pointer, "matches none of the %d anyOf variants", len(variants))
		}
	}
	if negated, ok := schema["not"]; ok && c.matches(negated, instance, pointer) {
		c.fail(pointer, "matches a schema it must not match")
	}
}

func (c *schemaChecker) checkObject(schema map[string]any, object map[string]any, pointer string) {
	properties, _ := schema["properties"].(map[string]any)
	if required, ok := schema["required"].([]any); ok {
		for _, name := range required {
			if name, ok := name.(string); ok {
				if _, present := object[name]; !present {
					c.fail(pointer, "missing required member %q", name)
				}
			}
		}
	}
	names := make([]string, 0, len(object))
	for name := range object {
		names = append(names, name)
	}
	sort.Strings(names)
	additional, hasAdditional := schema["additionalProperties"]
	for _, name := range names {
		here := pointer + "/" + escapePointerToken(name)
		if property, declared := properties[name]; declared {
			c.check(property, object[name], here)
		} else if hasAdditional {
			if additional == false {
				c.fail(here, "unknown member %q", name)
			} else {
				c.check(additional, object[name], here)
			}
		}
	}
}

func (c *schemaChecker) checkArray(schema map[string]any, array []any, pointer string) {
	count := json.Number(strconv.Itoa(len(array)))
	if bound, ok := schema["minItems"].(json.Number); ok && compareNumbers(count, bound) < 0 {
		c.fail(pointer, "fewer than %s items", bound)
	}
	if bound, ok := schema["maxItems"].(json.Number); ok && compareNumbers(count, bound) > 0 {
		c.fail(pointer, "more than %s items", bound)
	}
	if items, ok := schema["items"]; ok {
		for index, item := range array {
			c.check(items, item, pointer+"/"+strconv.Itoa(index))
		}
	}
}

func matchesType(types, instance any) bool {
	switch t := types.(type) {
	case string:
		return hasType(t, instance)
	case []any:
		for _, one := range t {
			if name, ok := one.(string); ok && hasType(name, instance) {
				return true
			}
		}
	}
	return false
}

// hasType tells whether instance is of the JSON Schema type name. An integer is a number
// written without a fraction or exponent: `1.0` is not one here, because neither Go's
// encoding/json nor Rust's serde_json decodes it into an integer type, and Validate must not
// accept what decoding rejects.
func hasType(name string, instance any) bool {
	switch name {
	case "null":
		return instance == nil
	case "boolean":
		_, ok := instance.(bool)
		return ok
	case "string":
		_, ok := instance.(string)
		return ok
	case "object":
		_, ok := instance.(map[string]any)
		return ok
	case "array":
		_, ok := instance.([]any)
		return ok
	case "number":
		_, ok := instance.(json.Number)
		return ok
	case "integer":
		number, ok := instance.(json.Number)
		return ok && !strings.ContainsAny(number.String(), ".eE")
	}
	return false
}

func describeTypes(types any) string {
	if list, ok := types.([]any); ok {
		names := make([]string, 0, len(list))
		for _, one := range list {
			names = append(names, fmt.Sprint(one))
		}
		return strings.Join(names, " or ")
	}
	return fmt.Sprint(types)
}

func kindOf(instance any) string {
	switch value := instance.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case json.Number:
		if strings.ContainsAny(value.String(), ".eE") {
			return "number " + value.String()
		}
		return "integer " + value.String()
	}
	return fmt.Sprintf("%T", instance)
}

// compareNumbers compares two JSON numbers exactly (as rationals, so that neither float64
// rounding nor int64 overflow can change the answer).
func compareNumbers(a, b json.Number) int {
	x, okX := new(big.Rat).SetString(a.String())
	y, okY := new(big.Rat).SetString(b.String())
	if !okX || !okY {
		return strings.Compare(a.String(), b.String())
	}
	return x.Cmp(y)
}

// jsonEqual is JSON value equality: numbers by exact value, objects regardless of order.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		return ok && compareNumbers(x, y) == 0
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for name, member := range x {
			other, present := y[name]
			if !present || !jsonEqual(member, other) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func compactJSON(value any) string {
	data, err := json.Marshal(value)
	if err != nil {
		return fmt.Sprint(value)
	}
	return string(data)
}
