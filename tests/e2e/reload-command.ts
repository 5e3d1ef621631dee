/**
 * reload-command.ts - test-only Pi extension for lifecycle_leaks.test.mjs: registers the command
 * `/e2e-reload`, which calls `ctx.reload()` (what the interactive `/reload` does), because Pi's
 * RPC mode has no reload command of its own. Loaded next to the extension under test with `-e`.
 */
export default function (pi: { registerCommand: (name: string, options: unknown) => void }): void {
	pi.registerCommand("e2e-reload", {
		description: "reload extensions (e2e)",
		handler: async (_args: string, ctx: { reload: () => Promise<void> }) => {
			await ctx.reload();
		},
	});
}
