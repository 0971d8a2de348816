import sys

if "--class" in sys.argv[1:]:  # the class scenario (bench/classvote.py): its own options
    from bench.classvote import main as class_main

    sys.exit(class_main([a for a in sys.argv[1:] if a != "--class"]))

from bench.run import main

sys.exit(main())
