import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's Chromium, headless, driven through chromedriver's W3C WebDriver HTTP API (with curl):
/// the browser a web page's `<video>` would play in. Chromium plays HLS natively (and, as Debian
/// builds it, H.264 and AAC).
public enum HeadlessBrowser {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
    static let chromedriver = "/usr/bin/chromedriver"

    /// Why the browser cannot run here; nil when chromium, chromedriver and curl are installed.
    public static var missingTool: String? {
        if !chromium.contains(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return "chromium is not installed (scripts/setup.sh)" }
        if !FileManager.default.isExecutableFile(atPath: chromedriver) { return "chromium-driver is not installed (scripts/setup.sh)" }
        if !Subprocess.isAvailable("curl") { return "curl is not installed" }
        return nil
    }

    /// What a page's video element showed.
    public struct VideoState: Sendable {
        public let currentTime: Double
        public let width: Int
        public let height: Int
        /// The element's `error.message` (or a rejected `play()`), when there was one.
        public let error: String?
    }

    /// Opens `page` (whose first `<video>` plays by itself) and polls the video until its
    /// `currentTime` passes `seconds` or `timeout` seconds go by; returns its last state.
    public static func play(page: String, until seconds: Double, timeout: Double = 30) throws -> VideoState {
        if let missingTool { throw TestFailure(missingTool) }
        let port = try freePort()
        let driver = Process()
        driver.executableURL = URL(fileURLWithPath: chromedriver)
        driver.arguments = ["--port=\(port)"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        defer {
            // chromedriver does not end on SIGTERM; its browser is gone with the session.
            kill(driver.processIdentifier, SIGKILL)
            driver.waitUntilExit()
        }
        let base = "http://127.0.0.1:\(port)"
        let ready = Date().addingTimeInterval(10)
        while (try? request("GET", "\(base)/status"))?["value"] == nil {
            guard Date() < ready else { throw TestFailure("chromedriver did not start") }
            usleep(50_000)
        }
        let options: [String: Any] = ["args": ["--headless=new", "--no-sandbox", "--autoplay-policy=no-user-gesture-required",
                                               "--mute-audio", "--disable-gpu"]]
        let created = try request("POST", "\(base)/session", ["capabilities": ["alwaysMatch": ["goog:chromeOptions": options]]])
        guard let value = created["value"] as? [String: Any], let session = value["sessionId"] as? String else {
            throw TestFailure("chromedriver made no session: \(created)")
        }
        defer { _ = try? request("DELETE", "\(base)/session/\(session)") }
        _ = try request("POST", "\(base)/session/\(session)/url", ["url": page])
        let script = """
            const v = document.querySelector('video');
            if (!v) return [0, 0, 0, 'no video element'];
            return [v.currentTime, v.videoWidth, v.videoHeight, v.error ? String(v.error.code) + ': ' + v.error.message : (window.playError || '')];
            """
        let deadline = Date().addingTimeInterval(timeout)
        var state = VideoState(currentTime: 0, width: 0, height: 0, error: nil)
        while Date() < deadline {
            let answer = try request("POST", "\(base)/session/\(session)/execute/sync", ["script": script, "args": [Any]()])
            if let values = answer["value"] as? [Any], values.count == 4 {
                let message = values[3] as? String ?? ""
                state = VideoState(currentTime: (values[0] as? NSNumber)?.doubleValue ?? 0, width: (values[1] as? NSNumber)?.intValue ?? 0,
                                   height: (values[2] as? NSNumber)?.intValue ?? 0, error: message.isEmpty ? nil : message)
            }
            if state.currentTime > seconds || state.error != nil { break }
            usleep(250_000)
        }
        return state
    }

    /// One WebDriver call: `method` on `url` with a JSON `body`; the JSON answer.
    private static func request(_ method: String, _ url: String, _ body: [String: Any]? = nil) throws -> [String: Any] {
        var arguments = ["-s", "-m", "60", "-X", method, url, "-H", "Content-Type: application/json"]
        if let body { arguments += ["-d", String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)] }
        let result = try Subprocess.run("curl", arguments, timeout: 90)
        guard result.status == 0 else { throw TestFailure("curl \(method) \(url): exit \(result.status)") }
        return (try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any] ?? [:]
    }
}
