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

    static func inMountNamespace(_ mount: String, _ command: [String]) throws -> ProcessResult {
        let quoted = command.map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
        return try Subprocess.run("unshare", ["-m", "sh", "-c", "\(mount) && exec \(quoted)"])
    }
}
