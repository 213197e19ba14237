import Testing
@testable import HeraldHTTP

@Suite struct MessageTests {
    @Test func headersLookUpCaseInsensitivelyAndKeepOrder() {
        var headers: HTTPHeaders = ["Content-Type": "text/html", "Set-Cookie": "a=1"]
        headers.add("set-cookie", "b=2")
        #expect(headers["content-type"] == "text/html")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        headers.set("Set-Cookie", "c=3")
        #expect(headers.values(for: "set-cookie") == ["c=3"])
        headers.remove("CONTENT-TYPE")
        #expect(headers.map(\.name) == ["Set-Cookie"])
        #expect(headers["Content-Typ"] == nil)
    }

    @Test func formDecodingHandlesPlusPercentAndOddInput() {
        let items = HTTPRequest.decodeForm(Array("a=1&b=x+y%21&&c&d=%E2%82%AC&e=%zz%4&=v".utf8))
        #expect(items.map(\.name) == ["a", "b", "c", "d", "e", ""])
        #expect(items.map(\.value) == ["1", "x y!", "", "€", "%zz%4", "v"])
    }

    @Test func queryItemsComeFromTheTarget() {
        let request = HTTPRequest(method: .get, target: "/search?q=push+campaign&page=2")
        #expect(request.path == "/search")
        #expect(request.queryItems.map { "\($0.name)=\($0.value)" } == ["q=push campaign", "page=2"])
        #expect(HTTPRequest(method: .get, target: "/plain").query == nil)
    }

    @Test func serializerOwnsFramingHeaders() {
        var out: [UInt8] = []
        let response = HTTPResponse(status: 201, headers: ["Content-Length": "999", "X-Evil": "a\r\nInjected: 1", "Connection": "keep-alive"],
                                    body: Array("hi".utf8))
        ResponseSerializer.write(response, headRequest: false, close: true, date: Array("D".utf8), into: &out)
        #expect(String(decoding: out, as: UTF8.self)
                == "HTTP/1.1 201 Created\r\nX-Evil: a  Injected: 1\r\nContent-Length: 2\r\nDate: D\r\nConnection: close\r\n\r\nhi")
    }

    @Test func serializerDropsBodiesWhereHTTPForbidsThem() {
        var out: [UInt8] = []
        ResponseSerializer.write(HTTPResponse(status: 204, body: [1]), headRequest: false, close: false, date: Array("D".utf8), into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "HTTP/1.1 204 No Content\r\nDate: D\r\n\r\n")
        out.removeAll()
        ResponseSerializer.write(HTTPResponse(status: 200, headers: ["Content-Length": "10"]), headRequest: true, close: false,
                                 date: Array("D".utf8), into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nDate: D\r\n\r\n")
    }

    @Test func dateIsIMFFixdate() {
        #expect(String(decoding: DateCache.format(784111777), as: UTF8.self) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
