//! workspace.mjs - the small project the scenarios work in: indexed Go source (FAKE-6 treats
//! `.go` as source and the cwd as tracked) and a non-source README.
export const MAIN_GO = `package main

import "fmt"

// Hello greets.
func Hello() string {
	return "hello"
}

func main() {
	fmt.Println(Hello())
}
`;

export const UTIL_GO = `package main

// Twice doubles n.
func Twice(n int) int {
	return n * 2
}
`;

export const SOURCE_FILES = {
  "main.go": MAIN_GO,
  "util.go": UTIL_GO,
  "README.md": "# demo\n\nA tiny Go program.\n",
};
