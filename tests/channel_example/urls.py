from django.urls import path

from tests.channel_example.views import example_home

urlpatterns = [path("example/", example_home, name="example-home")]
