import AppSettings
@_spi(AppSettingsTool) import AppSettingsStoredSets
import Foundation

// `appsettings diff`: which settings differ between two documents of one set.

func diff(_ arguments: ArraySlice<String>) {
    let options = Arguments(arguments, options: ["--suite", "--key"])
    let first: [String: Any]
    let second: [String: Any]
    if options["--suite"] != nil || options["--key"] != nil {
        let path = options.operands(["FILE"], for: "diff --suite")[0]
        first = storedSet(options, for: "diff").values
        second = document(atPath: path)
    } else {
        let paths = options.operands(["FILE", "FILE"], for: "diff")
        first = document(atPath: paths[0])
        second = document(atPath: paths[1])
    }
    let lines = differences(first, second, path: "")
    for line in lines { print(line) }
    exit(lines.isEmpty ? 0 : 1)
}

/// A document of one set (what `export` prints), read as `import` reads it; a trouble exits with
/// status 2.
private func document(atPath path: String) -> [String: Any] {
    let data = contents(ofFile: path, limit: StoredSettingsEditor.maximumDocumentByteCount, status: 2)
    do {
        return try StoredSettingsEditor.jsonObject(ofDocument: data)
    } catch {
        fail("\(path): \(error.description)", status: 2)
    }
}

/// One line per difference, by sorted name; objects present on both sides are compared entry by
/// entry, with dotted names.
private func differences(_ first: [String: Any], _ second: [String: Any], path: String) -> [String] {
    var lines: [String] = []
    for name in Set(first.keys).union(second.keys).sorted() {
        let fullName = path + name
        switch (first[name], second[name]) {
        case (let old?, nil):
            lines.append("- \(fullName): \(jsonText(old, pretty: false))")
        case (nil, let new?):
            lines.append("+ \(fullName): \(jsonText(new, pretty: false))")
        case (let old as [String: Any], let new as [String: Any]):
            lines += differences(old, new, path: fullName + ".")
        case (let old?, let new?):
            let oldText = jsonText(old, pretty: false)
            let newText = jsonText(new, pretty: false)
            if oldText != newText { lines.append("~ \(fullName): \(oldText) -> \(newText)") }
        case (nil, nil):
            break
        }
    }
    return lines
}
