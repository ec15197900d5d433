import Foundation

/// Every file under a folder with its bytes (paths relative to the folder, hidden files included):
/// compare two snapshots to prove a run created, changed or removed nothing.
public struct FolderSnapshot: Equatable, CustomStringConvertible {
    public let files: [String: Data]

    public init(_ folder: String) {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: "\(folder)/\(relative)", isDirectory: &isDirectory)
            files[isDirectory.boolValue ? relative + "/" : relative] =
                isDirectory.boolValue ? Data() : FileManager.default.contents(atPath: "\(folder)/\(relative)") ?? Data("<unreadable>".utf8)
        }
        self.files = files
    }

    public var names: [String] { files.keys.sorted() }
    public var description: String { names.joined(separator: ", ") }
}
