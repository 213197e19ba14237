import HeraldJSON
import Testing
@testable import HeraldCore

/// The pure reading of device imports, which are hostile input: lines and records are bounded,
/// refused by their line unread, and everything else in the file is still read.
@Suite struct DeviceImportTests {
    /// Feeds `bytes` in chunks of `size` and finishes.
    func lines(_ bytes: [UInt8], chunks size: Int, maximumBytes: Int = ImportLimits.lineBytes) -> [ImportLine<String>] {
        var reader = ImportLineReader(maximumBytes: maximumBytes)
        var lines: [ImportLine<String>] = []
        for start in stride(from: 0, to: bytes.count, by: size) { lines += reader.feed(bytes[start..<min(start + size, bytes.count)]) }
        return lines + reader.finish()
    }

    func records(_ bytes: [UInt8], chunks size: Int, maximumBytes: Int = ImportLimits.lineBytes) -> [ImportLine<[String]>] {
        var reader = CSVRecordReader(maximumBytes: maximumBytes)
        var records: [ImportLine<[String]>] = []
        for start in stride(from: 0, to: bytes.count, by: size) { records += reader.feed(bytes[start..<min(start + size, bytes.count)]) }
        return records + (reader.finish().map { [$0] } ?? [])
    }

    @Test func linesEndInLFOrCRLFWhateverTheChunks() {
        let text = Array("{\"a\":1}\r\n\n  \n{\"b\":2}\n{\"c\":3}".utf8)
        for size in [1, 2, 5, 1000] {
            #expect(lines(text, chunks: size) == [ImportLine(number: 1, content: .success("{\"a\":1}")), ImportLine(number: 4, content: .success("{\"b\":2}")),
                                                  ImportLine(number: 5, content: .success("{\"c\":3}"))], "chunks of \(size)")
        }
    }

    /// A line over the bound is refused by its number as soon as it passes the bound, and the reader
    /// holds at most the bound meanwhile; the lines after it are read as usual.
    @Test func aLineOverTheBoundIsRefusedByItsNumberAndSkippedUnheld() {
        let bound = 100
        let exact = String(repeating: "x", count: bound), over = String(repeating: "y", count: bound + 1)
        let text = Array("a\n\(exact)\r\n\(over)\r\n\(String(repeating: "z", count: 10 * bound))\nb".utf8)
        for size in [1, 7, 64, 100_000] {
            #expect(lines(text, chunks: size, maximumBytes: bound) == [
                ImportLine(number: 1, content: .success("a")), ImportLine(number: 2, content: .success(exact)),
                ImportLine(number: 3, content: .failure(.tooLong)), ImportLine(number: 4, content: .failure(.tooLong)),
                ImportLine(number: 5, content: .success("b")),
            ], "chunks of \(size)")
        }
        // Refused before its end arrives: the answer does not wait for (or hold) the rest of the line.
        var reader = ImportLineReader(maximumBytes: bound)
        #expect(reader.feed(Array(repeating: UInt8(ascii: "q"), count: bound)).isEmpty)
        #expect(reader.feed([UInt8(ascii: "q")]) == [ImportLine(number: 1, content: .failure(.tooLong))])
        for _ in 0..<100 { #expect(reader.feed(Array(repeating: UInt8(ascii: "q"), count: 1000)).isEmpty) }
        #expect(reader.bytes.capacity <= bound)
        #expect(reader.feed(Array("\nok\n".utf8)) == [ImportLine(number: 2, content: .success("ok"))])
    }

    /// An 8 MB line in 64 KiB chunks, as the server hands a body over (the old splitter kept all of
    /// it and moved it on every chunk: 8/16/32 MB took 0.5/1.5/5.6 s): refused once, by the second
    /// chunk, and nothing of it kept; each byte is looked at a bounded number of times.
    @Test func splittingALongLineIsLinear() {
        var reader = ImportLineReader()
        let chunk = Array(repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var refused: [ImportLine<String>] = []
        for _ in 0..<128 { refused += reader.feed(chunk) }
        refused += reader.feed(Array("\n{}\n".utf8))
        #expect(refused == [ImportLine(number: 1, content: .failure(.tooLong)), ImportLine(number: 2, content: .success("{}"))])
    }

    @Test func aBareCarriageReturnRefusesItsLineAndSaysSo() {
        // A file whose lines end in CR alone is one line with bare CRs in it: refused at its first CR.
        #expect(lines(Array("{\"a\":1}\r{\"b\":2}\r".utf8), chunks: 3) == [ImportLine(number: 1, content: .failure(.bareCarriageReturn))])
        #expect(lines(Array("{}\r\n{\"a\"\r:1}\n{}\r\r\n{}".utf8), chunks: 1).map(\.content) == [
            .success("{}"), .failure(.bareCarriageReturn), .failure(.bareCarriageReturn), .success("{}"),
        ])
        let issue = ImportLineProblem.bareCarriageReturn.issue()
        #expect(issue.code == "bare_carriage_return" && issue.message.contains("LF or CRLF"))
        let csv = records(Array("token,platform\rX,android\rY,ios\r".utf8), chunks: 4)
        #expect(csv == [ImportLine(number: 1, content: .failure(.bareCarriageReturn))])
        // Inside quotes a CR is part of the value.
        #expect(records(Array("a,\"b\rc\"\r\nd\n".utf8), chunks: 1).map { try? $0.content.get() } == [["a", "b\rc"], ["d"]])
    }

    @Test func invalidUTF8RefusesItsLineNotTheFile() {
        let text: [UInt8] = Array("{\"a\":\"".utf8) + [0xC3, 0x28] + Array("\"}\n{\"b\":\"é\"}\n".utf8)
        #expect(lines(text, chunks: 3) == [ImportLine(number: 1, content: .failure(.invalidUTF8(column: nil))),
                                           ImportLine(number: 2, content: .success("{\"b\":\"é\"}"))])
        let csv: [UInt8] = Array("token,platform,city\nt1,android,".utf8) + [0xFF] + Array("\nt2,ios,Zürich\nt3,web,".utf8) + [0xE2, 0x82]
        #expect(records(csv, chunks: 2) == [
            ImportLine(number: 1, content: .success(["token", "platform", "city"])), ImportLine(number: 2, content: .failure(.invalidUTF8(column: 2))),
            ImportLine(number: 3, content: .success(["t2", "ios", "Zürich"])), ImportLine(number: 4, content: .failure(.invalidUTF8(column: 2))),
        ])
        #expect(ImportLineProblem.invalidUTF8(column: 2).issue(field: "city").message == "city is not valid UTF-8; save the file as UTF-8")
    }

    /// A CSV record is bounded as a whole, quoted line breaks and all, and refused by the line it starts on.
    @Test func aCSVRecordOverTheBoundIsRefusedByItsFirstLine() {
        let bound = 50
        let text = Array("token,platform\nt1,android\nt2,\"\(String(repeating: "long\n", count: 20))\"\nt3,ios\n".utf8)
        for size in [1, 9, 10_000] {
            #expect(records(text, chunks: size, maximumBytes: bound) == [
                ImportLine(number: 1, content: .success(["token", "platform"])), ImportLine(number: 2, content: .success(["t1", "android"])),
                ImportLine(number: 3, content: .failure(.tooLong)), ImportLine(number: 24, content: .success(["t3", "ios"])),
            ], "chunks of \(size)")
        }
        var reader = CSVRecordReader(maximumBytes: bound)
        _ = reader.feed(Array(repeating: UInt8(ascii: "a"), count: 100_000))
        #expect(reader.field.capacity <= bound && reader.record.isEmpty)
        #expect(reader.feed(Array(",b\nc\n".utf8)) == [ImportLine(number: 2, content: .success(["c"]))])
        let issue = ImportLineProblem.tooLong.issue()
        #expect(issue.code == "too_long" && issue.limit == ImportLimits.lineBytes && issue.message.contains("65536 bytes"))
    }

    @Test func theHeaderIsBoundedAndCheckedInLinearTime() {
        let many = ["token"] + (1...ImportLimits.columns).map { "p\($0)" }
        guard case .failure(let errors) = DeviceCSVLayout.header(many) else { Issue.record("accepted"); return }
        #expect(errors.errors == [FieldError(path: "line 1", code: "too_many", message: "the header row has 1001 columns; at most 1000", limit: 1000)])
        // The most columns allowed: the duplicate check is a set, not a scan per column (60,000 took 19 s).
        #expect((try? DeviceCSVLayout.header(Array(many.dropLast())).get()) != nil)
        guard case .failure(let duplicate) = DeviceCSVLayout.header(["token", "city", "platform", "City "]) else { Issue.record("accepted"); return }
        #expect(duplicate.errors.map(\.code) == ["duplicate"] && duplicate.errors.first?.message.contains("city") == true)
        // A header refused unread refuses the file, naming why.
        guard case .failure(let bare) = DeviceCSVLayout.header(ImportLine(number: 1, content: .failure(.bareCarriageReturn))) else { Issue.record("accepted"); return }
        #expect(bare.errors.map(\.path) == ["line 1"] && bare.errors.first?.code == "bare_carriage_return")
    }

    /// PostgreSQL refuses an upsert that changes one row twice: the last occurrence of a token wins.
    @Test func theLastRowOfATokenWins() {
        let rows = [Device(token: "X", platform: .android), Device(token: "Y", platform: .web), Device(token: "X", platform: .ios)]
        #expect(Device.lastOfEachToken(rows) == [Device(token: "Y", platform: .web), Device(token: "X", platform: .ios)])
    }

    /// One rule for the API and the import: a NUL anywhere in a device document is refused by its path.
    @Test func aNULInADeviceIsRefusedByItsPath() {
        guard case .failure(let errors) = Device.parse(["token": "t1", "platform": "android", "properties": ["city": "Te\u{0}hran"]])
        else { Issue.record("accepted"); return }
        #expect(errors.errors == [FieldError(path: "properties.city", code: "nul_character",
                                             message: "properties.city contains the NUL character (U+0000), which no text may hold")])
    }

    /// A number of more than 9 digits would not fit the registry's comparison: it is refused, not
    /// read as a shorter version (5.2147483648 compared as 5).
    @Test func anAppVersionNumberOfMoreThanNineDigitsIsRefused() {
        #expect(AppVersion.key("5.999999999") == [5, 999_999_999])
        #expect(AppVersion.key("5.2147483648") == nil)
        #expect(AppVersion.problem("5.2147483648") == "each number of an app version has at most 9 digits, found 10 in \"5.2147483648\"")
        #expect(AppVersion.problem("1.2.3.4.5.6.7.8.9")?.contains("at most 8 numbers") == true)
        #expect(AppVersion.problem("5.2.0-beta") == nil && AppVersion.problem("v5")?.contains("starts with a number") == true)
        #expect(!AppVersion.isAtLeast("5.2147483648", "5.1"))
        guard case .failure(let device) = Device.parse(["token": "t1", "platform": "ios", "app_version": "5.2147483648"]) else { Issue.record("accepted"); return }
        #expect(device.errors.map(\.path) == ["app_version"] && device.errors.first?.message.contains("at most 9 digits") == true)
        guard case .failure(let rule) = SegmentRule.parse(["field": "app_version", "at_least": "5.2147483648"]) else { Issue.record("accepted"); return }
        #expect(rule.errors.map(\.path) == ["rule.at_least"] && rule.errors.first?.message.contains("at most 9 digits") == true)
    }
}
