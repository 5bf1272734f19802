def greet(name):
    print("Hello, " + name)


if __name__ == "__main__":
    greet("world")
