"""One HTTP request with the standard library, printed as JSON: for answers URLSession would
act on itself (a 401 it would try to answer)."""
import base64
import http.client
import json
import sys

port, method, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
headers = {"Depth": "0"}
if len(sys.argv) > 5:
    headers["Authorization"] = "Basic " + base64.b64encode(f"{sys.argv[4]}:{sys.argv[5]}".encode()).decode()
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
connection.request(method, path, headers=headers)
response = connection.getresponse()
print(json.dumps({"status": response.status, "www-authenticate": response.getheader("WWW-Authenticate")}))
