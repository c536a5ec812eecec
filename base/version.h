/* version.h - the release this tree is (gnnscope --version). Raised by
 * hand when the JSON summary, the CSV columns, the checkpoint or the cache
 * format, or a flag changes meaning. */
#ifndef GS_VERSION_H
#define GS_VERSION_H

#define GS_VERSION "0.9.0"

#endif
