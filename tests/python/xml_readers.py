#!/usr/bin/env python3
r"""How Python backends read an XML document, for utf8gate's XML differential test.

Input (stdin), one JSON document: {"cases": ["<base64 of the document bytes>", ...]}

Output (stdout), one JSON document:

    {"parsers": ["expat", "lxml"],
     "results": [{"expat": READING, "lxml": READING}, ...]}

READING is {"error": "<short text>"} when the parser refused the document, else

    {"names": [B64, ...],     # element and attribute names as written (expat only; lxml: [])
     "attributes": [B64, ...], # attribute values in document order (xmlns declarations left
                               # out), as the application receives them
     "text": B64,              # all character data (text and CDATA) in document order
     "comments": [B64, ...],
     "pis": [B64, ...]}        # processing-instruction data

B64 is the base64 of the UTF-8 bytes of the parser's `str` (lone surrogates kept with
surrogatepass).  Parsers:

* "expat": the standard library's `xml.parsers.expat` (what `xml.etree`, `xml.dom.minidom`
  and `xml.sax` use), no namespace processing, parameter entities never parsed, external
  entities not loaded.
* "lxml": lxml 6 / libxml2 with `resolve_entities=False, no_network=True, load_dtd=False`,
  comments and processing instructions kept: the settings of a careful backend.
"""

import base64
import json
import sys
import xml.parsers.expat

from lxml import etree


def b64(text):
    return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")


def expat_reading(doc):
    names, attributes, comments, pis, text = [], [], [], [], []
    parser = xml.parsers.expat.ParserCreate()
    parser.ordered_attributes = True
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def start(name, attrs):
        names.append(name)
        for i in range(0, len(attrs), 2):
            names.append(attrs[i])
            if not (attrs[i] == "xmlns" or attrs[i].startswith("xmlns:")):
                attributes.append(attrs[i + 1])

    parser.StartElementHandler = start
    parser.CharacterDataHandler = text.append
    parser.CommentHandler = comments.append
    parser.ProcessingInstructionHandler = lambda target, data: pis.append(data)
    parser.Parse(doc, True)
    return {
        "names": [b64(n) for n in names],
        "attributes": [b64(a) for a in attributes],
        "text": b64("".join(text)),
        "comments": [b64(c) for c in comments],
        "pis": [b64(p) for p in pis],
    }


def lxml_reading(doc):
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        remove_comments=False,
        remove_pis=False,
        strip_cdata=True,
        recover=False,
        huge_tree=False,
    )
    root = etree.fromstring(doc, parser)
    attributes, comments, pis, text = [], [], [], []

    def walk(node):
        if isinstance(node, etree._Comment):
            comments.append(node.text or "")
        elif isinstance(node, etree._ProcessingInstruction):
            pis.append(node.text or "")
        elif isinstance(node, etree._Entity):
            raise ValueError("an entity reference left in the tree")
        else:
            attributes.extend(node.attrib.values())
            text.append(node.text or "")
            for child in node:
                walk(child)
                text.append(child.tail or "")

    # Comments and processing instructions around the root, in order.
    before = []
    sibling = root.getprevious()
    while sibling is not None:
        before.append(sibling)
        sibling = sibling.getprevious()
    for node in reversed(before):
        walk(node)
    walk(root)
    sibling = root.getnext()
    while sibling is not None:
        walk(sibling)
        sibling = sibling.getnext()
    return {
        "names": [],
        "attributes": [b64(a) for a in attributes],
        "text": b64("".join(text)),
        "comments": [b64(c) for c in comments],
        "pis": [b64(p) for p in pis],
    }


READERS = {"expat": expat_reading, "lxml": lxml_reading}


def main():
    cases = json.load(sys.stdin)["cases"]
    results = []
    for case in cases:
        doc = base64.b64decode(case)
        result = {}
        for name, reader in READERS.items():
            try:
                result[name] = reader(doc)
            except Exception as e:  # a refusal, whatever its class
                result[name] = {"error": f"{type(e).__name__}: {e}"[:200]}
        results.append(result)
    json.dump({"parsers": list(READERS), "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
