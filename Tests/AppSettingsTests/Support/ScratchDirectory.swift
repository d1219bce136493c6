import Foundation

/// A fresh directory under the temporary directory for one test's files, removed with it.
final class ScratchDirectory: @unchecked Sendable {
    let url: URL

    init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // A leftover scratch directory under the temporary directory loses nothing.
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes a file into the directory.
    func file(_ name: String, _ contents: Data) throws -> URL {
        let fileURL = url.appendingPathComponent(name)
        try contents.write(to: fileURL)
        return fileURL
    }

    /// The path of a file of the directory that is not written.
    func missingFile(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }
}
