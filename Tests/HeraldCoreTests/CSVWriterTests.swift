import HeraldCore
import HeraldTestSupport
import Testing

/// The one CSV writer: OWASP's formula starts guarded, after leading white space and in their
/// fullwidth forms, and an export's guard taken off again on import.
struct CSVWriterTests {
    @Test func everyFormulaStartIsWrittenBehindAQuote() {
        for text in CSVInjection.strings {
            #expect(CSVInjection.runsAsFormula(text))
            let cell = CSVWriter.cell(text)
            // Unquoted by a reader, the cell starts with ' (quoted ones hold the same after the quote).
            let read = cell.hasPrefix("\"") ? String(cell.dropFirst()) : cell
            #expect(read.hasPrefix("'") && !CSVInjection.runsAsFormula(read), "\(text.debugDescription) was written \(cell.debugDescription)")
            #expect(CSVWriter.unguarded("'" + text) == text)
        }
    }

    @Test func otherTextIsWrittenAsItIsAndQuotedOnlyWhenItMust() {
        for text in ["Berlin", "a-b", "1.5", "x=y", "Hello, world", "say \"hi\"", "'quoted'", "", "   ", "e-mail@example.com", "شهر"] {
            let cell = CSVWriter.cell(text)
            #expect(cell == text || cell == "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"",
                    "\(text.debugDescription) was written \(cell.debugDescription)")
            #expect(CSVWriter.unguarded(text) == text)
        }
        #expect(CSVWriter.cell("Hello, world") == "\"Hello, world\"")
        #expect(CSVWriter.cell("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSVWriter.cell("=1,2") == "\"'=1,2\"")
        #expect(CSVWriter.row(["a", "=b", "c d"]) == "a,'=b,c d\r\n")
    }

    /// A value that already starts with ' before a formula start keeps it through an export and
    /// an import: the writer adds one more, the import takes exactly one off.
    @Test func aGuardedLookingValueComesBackAsItWas() {
        for text in ["'=1", "''+1", "' -2"] {
            #expect(CSVWriter.cell(text) == "'" + text)
            #expect(CSVWriter.unguarded(CSVWriter.cell(text)) == text)
        }
    }

    /// A device with a formula in every free-text column is exported guarded and imports back as it was.
    @Test func aDeviceExportGuardsEveryColumnAndImportsBack() throws {
        for text in CSVInjection.strings {
            let device = Device(token: "-1-2:abc", platform: .android, appID: text, properties: ["city": text])
            let header = DeviceCSVLayout.exportHeader(properties: ["city"])
            let row = DeviceCSVLayout.exportRow(device, properties: ["city"])
            var reader = CSVRecordReader()
            let records = reader.feed(Array((CSVWriter.row(header) + row + "\r\n").utf8)) + [reader.finish()].compactMap { $0 }
            let fields = try #require(try records.last?.content.get())
            #expect(fields[0] == "'-1-2:abc" && fields[3] == "'" + text && fields.last == "'" + text, "\(fields)")
            let layout = try DeviceCSVLayout.header(header).get()
            guard case .success(let back) = Device.parse(layout.document(fields)) else { Issue.record("refused \(fields)"); continue }
            #expect(back == device)
        }
    }
}
