import Foundation

/// What a finished child process left behind.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: Data
    /// The child died of a signal (a crash, or a kill); `status` is then the signal number.
    public var diedOfSignal = false
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

public enum Subprocess {
    /// Runs `executable` (a path, or a name looked up on PATH) to completion. With `timeout`
    /// (seconds), a child still running then is killed with its process group (a shell's
    /// pipeline too) and the call throws, so a hang fails the test instead of stalling the suite.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil,
                           environment: [String: String]? = nil, timeout: Double? = nil) throws -> ProcessResult {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        let timedOut = LockedBox(false), reaped = LockedBox(false)
        if let timeout {
            // Foundation starts the child as the leader of its own process group.
            let group = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                guard !reaped.get() else { return }
                timedOut.set(true)
                kill(-group, SIGKILL)
            }
        }
        if let stdin {
            if timeout != nil {
                // A killed child's closed stdin must fail the write, not kill the test process.
                signal(SIGPIPE, SIG_IGN)
                try? input.fileHandleForWriting.write(contentsOf: stdin)
            } else {
                input.fileHandleForWriting.write(stdin)
            }
            try? input.fileHandleForWriting.close()
        }
        // Read both pipes concurrently so a chatty child never blocks on a full pipe.
        let errData = LockedBox(Data())
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData.set(err.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        reaped.set(true)
        if timedOut.get() {
            throw TestFailure("\(executable) \(arguments.joined(separator: " ")) was still running after \(timeout ?? 0) s: killed")
        }
        return ProcessResult(status: process.terminationStatus, stdout: outData, stderr: errData.get(),
                             diedOfSignal: process.terminationReason == .uncaughtSignal)
    }

    /// Whether `name` is on PATH.
    public static func isAvailable(_ name: String) -> Bool {
        (try? run("sh", ["-c", "command -v \(name)"]))?.status == 0
    }
}

/// A value behind a lock, for handing results between threads in test helpers.
public final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    public init(_ value: T) { self.value = value }
    public func get() -> T { lock.withLock { value } }
    public func set(_ newValue: T) { lock.withLock { value = newValue } }
    /// Changes the value in place, under the lock.
    @discardableResult
    public func update<R>(_ body: (inout T) -> R) -> R { lock.withLock { body(&value) } }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
