import Foundation

/// Runs a command whose output folder cannot be written. As a normal user a 0555 folder does it;
/// root ignores permissions, so there the command runs in a private mount namespace over a
/// read-only tmpfs (what CI, which runs as root, needs).
public enum RestrictedOutput {
    public static func runWithReadOnlyFolder(_ folder: String, _ command: [String]) throws -> ProcessResult {
        if geteuid() != 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
            return try Subprocess.run(command[0], Array(command.dropFirst()))
        }
        return try inMountNamespace("mount -t tmpfs -o ro none '\(folder)'", command)
    }

    /// Runs `command` with `folder` replaced by a tmpfs of `bytes` bytes (a full disk on demand).
    /// Needs root (skipped by callers otherwise).
    public static func runWithSmallDisk(_ folder: String, bytes: Int, _ command: [String]) throws -> ProcessResult {
        try inMountNamespace("mount -t tmpfs -o size=\(bytes) none '\(folder)'", command)
    }

    /// Runs `command` so that writing more than about `bytes` bytes into `folder` fails, and returns
    /// what it left in that folder (hidden files included). As root: a tmpfs of that size mounted
    /// over `folder` (ENOSPC; listed from inside the namespace, since the tmpfs vanishes with it).
    /// Otherwise: `ulimit -f` (EFBIG; avpipe ignores SIGXFSZ so the write fails instead of killing it).
    /// `fileSizeLimit` forces the `ulimit -f` way even as root.
    public static func runWithFullDisk(_ folder: String, bytes: Int, fileSizeLimit: Bool = false,
                                       _ command: [String]) throws -> (ProcessResult, leftovers: [String]) {
        let listing = NSTemporaryDirectory() + "avpipe-listing-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: listing) }
        let run = "\(quote(command)); status=$?; ls -A '\(folder)' > '\(listing)'; exit $status"
        let result: ProcessResult
        if geteuid() == 0 && !fileSizeLimit {
            result = try Subprocess.run("unshare", ["-m", "sh", "-c", "mount -t tmpfs -o size=\(bytes) none '\(folder)' && { \(run); }"])
        } else {
            result = try Subprocess.run("sh", ["-c", "(ulimit -f \(max(1, bytes / 512)); exec \(quote(command))); status=$?; ls -A '\(folder)' > '\(listing)'; exit $status"])
        }
        let leftovers = readWholeFile(listing).map { String(decoding: $0, as: UTF8.self).split(separator: "\n").map(String.init) }
            ?? ["<no listing>"]
        return (result, leftovers)
    }

    static func inMountNamespace(_ mount: String, _ command: [String]) throws -> ProcessResult {
        try Subprocess.run("unshare", ["-m", "sh", "-c", "\(mount) && exec \(quote(command))"])
    }

    static func quote(_ command: [String]) -> String {
        command.map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
    }
}
