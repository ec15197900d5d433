import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct PlayCommandTests {
    /// With no sound server and SDL pinned to PulseAudio, play fails in one line that says why and
    /// what to do instead.
    @Test func noDeviceIsAClearErrorSuggestingDecode() throws {
        let folder = TemporaryDirectory()
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "aac", folder.file("in.m4a")])
        let empty = TemporaryDirectory()
        let environment = ["XDG_RUNTIME_DIR": empty.path, "PULSE_SERVER": "unix:\(empty.path)/none", "SDL_AUDIODRIVER": "pulseaudio"]
        let result = try Subprocess.run(Locations.avpipe, ["play", folder.file("in.m4a")], environment: environment)
        #expect(result.status == 69)
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(result.stderrText)")
        #expect(result.stderrText.contains("no audio output device"))
        #expect(result.stderrText.contains("avpipe decode"))
    }

    /// Without a display, a picture with nothing else to play fails in one line that names the
    /// display (not "every track was turned off") and says what to do.
    @Test(arguments: [["--no-audio"], []]) func noDisplayForThePictureNamesTheDisplay(flags: [String]) throws {
        let folder = TemporaryDirectory()
        let clip = folder.file("clip.mp4")
        // With --no-audio the file's sound is turned off; without it, the file has none.
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=10:duration=0.5"]
                                + (flags.isEmpty ? [] : ["-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "aac"])
                                + ["-c:v", "libx264", clip])
        let environment = ["DISPLAY": "", "WAYLAND_DISPLAY": ""]
        let result = try Subprocess.run(Locations.avpipe, ["play", clip] + flags, environment: environment)
        #expect(result.status == 69, "\(result.stderrText)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(result.stderrText)")
        #expect(result.stderrText.contains("no display available: neither DISPLAY nor WAYLAND_DISPLAY is set"), "\(result.stderrText)")
        #expect(result.stderrText.contains("Xvfb"), "says what to do: \(result.stderrText)")
        #expect(result.stderrText.contains("without --no-audio") == !flags.isEmpty, "\(result.stderrText)")
        #expect(!result.stderrText.contains("every track"), "\(result.stderrText)")
    }

    /// With neither a display nor a sound server, a movie's error names both devices.
    @Test func neitherDeviceNamesBoth() throws {
        let folder = TemporaryDirectory()
        let clip = folder.file("clip.mp4")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=10:duration=0.5",
                                 "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "aac", "-c:v", "libx264", clip])
        let empty = TemporaryDirectory()
        let environment = ["DISPLAY": "", "WAYLAND_DISPLAY": "", "XDG_RUNTIME_DIR": empty.path,
                           "PULSE_SERVER": "unix:\(empty.path)/none", "SDL_AUDIODRIVER": "pulseaudio"]
        let result = try Subprocess.run(Locations.avpipe, ["play", clip], environment: environment)
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(result.stderrText.split(separator: "\n").count == 1, "one line: \(result.stderrText)")
        #expect(result.stderrText.contains("no audio output device available"), "\(result.stderrText)")
        #expect(result.stderrText.contains("no display (neither DISPLAY nor WAYLAND_DISPLAY is set"), "\(result.stderrText)")
        #expect(result.stderrText.contains("avpipe decode"), "\(result.stderrText)")
    }

    /// On a terminal, play's status line measures its speed by what was played: a jump (here
    /// `--start 4`, which seeks) moves the position but plays nothing, so the speed stays about
    /// 1× real time instead of counting the 4 s skipped (it said "40× real time").
    @Test(.needsSoundServer) func theSpeedOnTheStatusLineLeavesOutSeeks() throws {
        let server = try PulseAudioServer.started()
        let folder = TemporaryDirectory()
        let source = folder.file("tone.m4a")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=6", "-c:a", "aac", source])
        let command = "'\(Locations.avpipe)' play '\(source)' --start 4"
        let result = try Subprocess.run("script", ["-qefc", command, "/dev/null"], environment: server.environment)
        #expect(result.status == 0, "\(result.stdoutText)")
        let speeds = result.stdoutText.matches(of: /([0-9]+\.[0-9])× real time/).compactMap { Double($0.1) }
        #expect(!speeds.isEmpty, "no speed on the terminal: \(result.stdoutText)")
        // The clock runs at the sound's pace: never much faster than the wall clock.
        #expect(speeds.allSatisfy { $0 <= 1.5 }, "speeds shown: \(speeds)")
        #expect(result.stdoutText.contains("100%"), "\(result.stdoutText)")
    }

    /// The real thing: avpipe plays a two-tone file through a private PulseAudio daemon's null sink;
    /// parec records the sink's monitor, and the recording must match the source.
    @Test(.needsSoundServer) func playsThroughARealPulseAudioServer() async throws {
        let server = try PulseAudioServer.started()
        let folder = TemporaryDirectory()
        let source = folder.file("tone.m4a")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1.5",
                                 "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:duration=1.5",
                                 "-filter_complex", "[0:a][1:a]amerge=inputs=2[a]", "-map", "[a]", "-c:a", "aac", source])

        let devices = try Subprocess.run(Locations.avpipe, ["play", "--list-devices"], environment: server.environment)
        #expect(devices.status == 0)
        #expect(!devices.stdoutText.isEmpty, "the null sink is listed")

        let reference = SignalAnalysis.deinterleaveS16(try Subprocess.run("ffmpeg", ["-v", "error", "-i", source, "-f", "s16le", "-"]).stdout.map { $0 },
                                             channels: 2)
        let expected = try #require(SignalAnalysis.audibleRange(reference[0]))
        let expectedSeconds = Double(expected.count) / 44_100
        // A real-time recording on a machine busy with the other tests can catch a scheduling gap
        // (the device waiting for the server): a mismatch is played once more before it counts.
        // A fault of ours shows in both attempts.
        for attempt in 1...2 {
            let recording = folder.file("rec-\(attempt).raw")
            let recorder = try server.record(to: recording)
            try await Task.sleep(for: .milliseconds(300))
            let play = try Subprocess.run(Locations.avpipe, ["play", source], environment: server.environment)
            // parec writes what the monitor gives it with some delay, more on a loaded machine; it is
            // killed (losing what it has not written), so it gets time to catch up first.
            try await Task.sleep(for: .milliseconds(1000))
            server.stopRecording(recorder)
            #expect(play.status == 0, "\(play.stderrText)")

            let recorded = SignalAnalysis.deinterleaveS16(try fileBytes(recording), channels: 2)
            let heard = try #require(SignalAnalysis.audibleRange(recorded[0]), "the recording is silent")
            let heardSeconds = Double(heard.count) / 44_100
            // Align on the first audible sample, then compare a second of shape.
            let offset = heard.lowerBound - expected.lowerBound
            let correlations = (0..<2).map { channel in
                SignalAnalysis.normalizedCrossCorrelation(reference[channel], recorded[channel],
                                                         start: expected.lowerBound + 2205, length: 22_050,
                                                         lags: (offset - 64)...(offset + 64))
            }
            // Nothing cut; on a starved machine the device may have played silence while it waited for
            // audio (counted underruns), which stretches what is heard a little.
            let lengthMatches = heardSeconds >= expectedSeconds - 0.15 && heardSeconds <= expectedSeconds + 0.5
            if attempt == 1 && (!lengthMatches || correlations.contains { $0 < 0.9 }) {
                print("notice: the real-time recording does not match (heard \(heardSeconds) s, correlations \(correlations)); playing once more")
                continue
            }
            #expect(lengthMatches, "heard \(heardSeconds) s, expected \(expectedSeconds) s")
            let middle = heard.lowerBound + 4410
            #expect(abs(SignalAnalysis.dominantFrequency(recorded[0], sampleRate: 44_100, start: middle) - 440) <= 10)
            #expect(abs(SignalAnalysis.dominantFrequency(recorded[1], sampleRate: 44_100, start: middle) - 1000) <= 10)
            for (channel, correlation) in correlations.enumerated() {
                #expect(correlation >= 0.9, "channel \(channel): correlation \(correlation)")
            }
            break
        }
    }
}
