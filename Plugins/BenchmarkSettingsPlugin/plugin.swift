import PackagePlugin

/// Generates the Benchmarks target's large settings sets at build time (20, 200 and 2,000
/// settings, and their `Codable` twins) with `BenchmarkSettingsGenerator`, so that no generated
/// code is committed.
@main
struct BenchmarkSettingsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedSettings.swift")
        return [
            .buildCommand(
                displayName: "Generating the benchmark's settings sets",
                executable: try context.tool(named: "BenchmarkSettingsGenerator").url,
                arguments: [output.path],
                outputFiles: [output]
            )
        ]
    }
}
